import { loadKubeconfig, resolveConfig } from '@k/config';
import { startNodeProgram } from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createRestClient } from '../src/index.js';

const namespace = useTestNamespace({ prefix: 'quiet-watch' });

// undici cuts a response body that sends nothing for 300 s unless told otherwise; a watch on a
// quiet namespace sends nothing for much longer. Only a wait past that limit shows it. (The
// field selector keeps the namespace's own kube-root-ca.crt from breaking the silence.)
const QUIET_MS = 310_000;

describe('a watch that stays quiet for longer than five minutes', () => {
  it(
    'still delivers the next event (no body timeout under the idle check)',
    async () => {
      const program = await startNodeProgram(
        {
          imports: {
            '@k/config': ['loadKubeconfig', 'resolveConfig'],
            '@k/rest': ['createRestClient'],
          },
          main: `
const kubeconfig = await loadKubeconfig({ explicitPath: process.env.KUBECONFIG });
const client = createRestClient(resolveConfig(kubeconfig, { context: 'admin' }));
const watch = await client.get().namespace(process.argv[2]).resource('configmaps')
  .param('timeoutSeconds', 3600).param('fieldSelector', 'metadata.name=after-the-quiet')
  .watch({ idleTimeoutMs: 0 });
console.log('watching');
for await (const event of watch) {
  console.log(event.type, event.object.metadata.name);
  break;
}
await client.close();`,
        },
        'esm',
        {
          env: { KUBECONFIG: controlPlane().kubeconfigPath },
          args: [namespace.name],
          timeoutMs: QUIET_MS + 60_000,
        },
      );
      await program.waitForStdout(/watching/);
      await delay(QUIET_MS);
      const client = createRestClient(
        resolveConfig(await loadKubeconfig({ explicitPath: controlPlane().kubeconfigPath }), {
          context: 'admin',
        }),
      );
      try {
        await client
          .post()
          .namespace(namespace.name)
          .resource('configmaps')
          .body({ metadata: { name: 'after-the-quiet' } })
          .execute();
      } finally {
        await client.close();
      }
      const result = await program.exited;
      expect(result.stderr).toBe('');
      expect(result).toMatchObject({ exitCode: 0, stdout: 'watching\nADDED after-the-quiet\n' });
    },
    QUIET_MS + 90_000,
  );
});
