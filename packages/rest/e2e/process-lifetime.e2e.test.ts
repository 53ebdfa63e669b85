import { MODULE_KINDS, runNodeProgram, type NodeProgram } from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { describe, expect, it } from 'vitest';

// Each program runs as a plain `node` process against the built packages: vitest's own event
// loop never empties, so only a separate process shows work that does not hold the process open.

const namespace = useTestNamespace({ prefix: 'lifetime' });

function restProgram(main: string): NodeProgram {
  return {
    imports: {
      '@k/config': ['loadKubeconfig', 'resolveConfig'],
      '@k/rest': ['createRestClient', 'retryOnConflict', 'isConflict'],
    },
    main: `
const kubeconfig = await loadKubeconfig({ explicitPath: process.env.KUBECONFIG });
const client = createRestClient(resolveConfig(kubeconfig, { context: 'admin' }));
try {
${main}
} finally {
  await client.close();
}`,
  };
}

describe.each(MODULE_KINDS)('a plain %s program', (kind) => {
  it('finishes 30 sequential GETs past the throttle burst with the default 5 qps', async () => {
    const result = await runNodeProgram(
      restProgram(`
for (let index = 0; index < 30; index += 1) {
  await client.get().resource('namespaces').name(process.argv[2]).execute();
}
console.log('gets', 30);`),
      kind,
      { env: { KUBECONFIG: controlPlane().kubeconfigPath }, args: [namespace.name] },
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'gets 30\n' });
  });

  it('finishes a retryOnConflict loop that backs off after a real conflict', async () => {
    const result = await runNodeProgram(
      restProgram(`
const configMaps = () => client.get().namespace(process.argv[2]).resource('configmaps');
const created = await client.post().namespace(process.argv[2]).resource('configmaps')
  .body({ metadata: { name: 'counter' }, data: { value: '0' } }).execute();
let attempts = 0;
await retryOnConflict(async () => {
  attempts += 1;
  // The first attempt writes with a stale resourceVersion, as a racing writer would.
  const current = attempts === 1 ? created : await configMaps().name('counter').execute();
  if (attempts === 1) {
    await client.put().namespace(process.argv[2]).resource('configmaps').name('counter')
      .body({ ...created, data: { value: 'other writer' } }).execute();
  }
  await client.put().namespace(process.argv[2]).resource('configmaps').name('counter')
    .body({ ...current, data: { value: String(attempts) } }).execute();
});
console.log('attempts', attempts);`),
      kind,
      { env: { KUBECONFIG: controlPlane().kubeconfigPath }, args: [namespace.name] },
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'attempts 2\n' });
  });

  it('exits by itself right after its work, throttle waits included, without close()', async () => {
    const result = await runNodeProgram(
      {
        imports: {
          '@k/config': ['loadKubeconfig', 'resolveConfig'],
          '@k/rest': ['createRestClient'],
        },
        // No close(): idle keep-alive connections and idle timers must not keep it running.
        main: `
const kubeconfig = await loadKubeconfig({ explicitPath: process.env.KUBECONFIG });
const client = createRestClient(resolveConfig(kubeconfig, { context: 'admin' }));
for (let index = 0; index < 12; index += 1) await client.get().resource('namespaces').execute();
const watch = await client.get().resource('namespaces').watch({ idleTimeoutMs: 600_000 });
watch.close();
console.log('done');`,
      },
      kind,
      { env: { KUBECONFIG: controlPlane().kubeconfigPath }, timeoutMs: 30_000 },
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
  });

  it('ends a stream and a watch early, before and while reading, without an error event', async () => {
    const result = await runNodeProgram(
      restProgram(`
const configMaps = () => client.get().namespace(process.argv[2]).resource('configmaps');
await client.post().namespace(process.argv[2]).resource('configmaps')
  .body({ metadata: { name: 'one' } }).execute();
// destroy() is how a reader of logs or any stream stops early: before reading, from a 'data'
// listener while the body flows, and while piped somewhere.
const untouched = await configMaps().param('watch', 'true').stream();
untouched.destroy();
const read = await configMaps().param('watch', 'true').stream();
await new Promise((resolve) => read.on('data', () => { read.destroy(); resolve(); }));
const piped = await configMaps().param('watch', 'true').stream();
const { PassThrough } = await import('node:stream');
piped.pipe(new PassThrough().resume());
await new Promise((resolve) => piped.once('data', resolve));
piped.destroy();
// A watch closed before and after its first event.
const idle = await configMaps().watch();
idle.close();
const watch = await configMaps().watch();
for await (const event of watch) break;
await new Promise((resolve) => setTimeout(resolve, 200));
console.log('quiet', untouched.destroyed && read.destroyed && piped.destroyed);`),
      kind,
      { env: { KUBECONFIG: controlPlane().kubeconfigPath }, args: [namespace.name] },
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'quiet true\n' });
  });
});
