import { MODULE_KINDS, runNodeProgram, type NodeProgramResult } from '@k/test-utils';
import { controlPlane, useTestNamespace } from '@k/testenv/vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clientset } from '../src/index.js';
import { clientsetFor } from './helpers.js';
import { execPod } from './pod-streams-helpers.js';

// exec and port-forward in real child programs (the built packages, ESM and CommonJS): an open
// session or listener is pending work and keeps the program alive; once it is over, nothing of
// it holds the event loop, so the program exits by itself with status 0.
const namespace = useTestNamespace({ prefix: 'clientset-streams-life' });
const scratch = await mkdtemp(join(tmpdir(), 'clientset-streams-life-'));
let admin: Clientset;

const PRINT_HOLDING = `await new Promise((resolve) => setImmediate(resolve));
console.log(JSON.stringify(process.getActiveResourcesInfo().filter((type) => type !== 'PipeWrap' && type !== 'TTYWrap')));`;

beforeAll(async () => {
  admin = await clientsetFor('admin');
});

/** shellPod makes the test namespace's pod `shell`, whose commands run in the scratch folder. */
function shellPod(): Promise<void> {
  return execPod(admin, namespace.name, 'shell', { workDir: scratch });
}

afterAll(async () => {
  await admin?.close();
  await rm(scratch, { recursive: true, force: true });
});

function run(kind: (typeof MODULE_KINDS)[number], main: string): Promise<NodeProgramResult> {
  return runNodeProgram({ imports: { '@k/clientset': ['inferClientset'] }, main }, kind, {
    env: { KUBECONFIG_PATH: controlPlane().kubeconfigPath, NAMESPACE: namespace.name },
    timeoutMs: 30_000,
  });
}

const CONNECT = `const cs = await inferClientset({ kubeconfig: process.env.KUBECONFIG_PATH, context: 'tester' });
const pods = cs.coreV1.pods(process.env.NAMESPACE);`;

describe.each(MODULE_KINDS)('pod streams in a plain %s program', (kind) => {
  it('a running exec keeps the program alive; once it ended, nothing holds the loop (no close())', async () => {
    await shellPod();
    const result = await run(
      kind,
      `${CONNECT}
      const session = await pods.exec('shell', { command: ['sh', '-c', 'sleep 1; echo late'] });
      let out = '';
      session.stdout.on('data', (chunk) => (out += chunk));
      const { exitCode } = await session.result;
      console.log(exitCode, out.trim());
      ${PRINT_HOLDING}`,
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(result.stdout).toBe('0 late\n[]\n');
  });

  it('a port forwarder holds the program until it is closed', async () => {
    await shellPod();
    const result = await run(
      kind,
      `${CONNECT}
      const forwarder = await pods.portForward('shell', [{ local: 0, remote: 1 }]).catch((error) => error);
      // No PortForward object: the first stream still opens (the error comes on its error
      // stream); the listener is up and holds the loop until close().
      console.log(typeof forwarder.ports?.[0]?.local);
      setTimeout(() => void forwarder.close().then(() => console.log('closed')), 500);`,
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(result.stdout).toBe('number\nclosed\n');
  });
});
