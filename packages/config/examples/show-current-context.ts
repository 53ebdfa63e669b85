// Prints which server, user and namespace the current kubeconfig context selects, the way
// kubectl would pick them, and (with --use NAME) switches the current context, keeping the
// file's comments.
//   npx tsx packages/config/examples/show-current-context.ts [--use NAME]
import { KubeError, loadKubeconfig, resolveConfig } from '@k/config';
import { setCurrentContext } from '@k/config/edit';

async function main(): Promise<void> {
  const useIndex = process.argv.indexOf('--use');
  const switchTo = useIndex >= 0 ? process.argv[useIndex + 1] : undefined;
  let loaded = await loadKubeconfig();
  if (switchTo) {
    const { writtenFiles } = await setCurrentContext(loaded, switchTo);
    console.log(`switched to "${switchTo}" in ${writtenFiles.join(', ')}`);
    loaded = await loadKubeconfig();
  }
  const resolved = resolveConfig(loaded);
  console.log(
    JSON.stringify(
      {
        context: resolved.contextName,
        server: resolved.server,
        user: resolved.userName,
        auth: resolved.auth.kind,
        namespace: resolved.namespace,
        impersonating: resolved.impersonation?.user ?? null,
      },
      null,
      2,
    ),
  );
}

main().catch((error: unknown) => {
  if (!KubeError.isInstance(error)) throw error;
  console.error(`${error.code}: ${error.message}`);
  process.exitCode = 1;
});
