import { kubeRequest, type ControlPlaneConnection } from '@k/testenv';
import { controlPlane } from '@k/testenv/vitest';
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import type { Clientset, RemoteCommandSession } from '../src/index.js';
import { eventually } from './helpers.js';

/** kwokObject creates one of kwok's configuration objects (Exec, Attach, PortForward, Logs) as admin. */
export async function kwokObject(
  namespace: string,
  kind: 'Exec' | 'Attach' | 'PortForward' | 'Logs',
  name: string,
  spec: unknown,
  connection: ControlPlaneConnection = controlPlane(),
): Promise<void> {
  const { server, caPem, users } = connection;
  const plural = { Exec: 'execs', Attach: 'attaches', PortForward: 'portforwards', Logs: 'logs' }[
    kind
  ];
  const response = await kubeRequest({
    server,
    caPem,
    credentials: users.admin,
    method: 'POST',
    path: `/apis/kwok.x-k8s.io/v1alpha1/namespaces/${namespace}/${plural}`,
    body: { apiVersion: 'kwok.x-k8s.io/v1alpha1', kind, metadata: { name }, spec },
  });
  expect(response.status, response.body).toBe(201);
}

/**
 * runningPod creates a Pod (one container `main` unless named; on `nodeName` when given, for a
 * plane without a scheduler) and waits until it runs.
 */
export async function runningPod(
  cs: Clientset,
  namespace: string,
  name: string,
  containers: readonly string[] = ['main'],
  nodeName?: string,
): Promise<void> {
  const pods = cs.coreV1.pods(namespace);
  await pods.create({
    metadata: { name },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      containers: containers.map((container) => ({
        name: container,
        image: 'registry.invalid/app:1',
      })),
    },
  });
  await eventually(
    async () => expect((await pods.get(name)).status?.phase).toBe('Running'),
    60_000,
  );
}

/** ExecPodOptions say where an exec pod's commands run and who checks that it is ready. */
export interface ExecPodOptions {
  /** workDir is where kwok runs the commands (on this machine). */
  workDir: string;
  /** envs are set for every command. */
  envs?: readonly { name: string; value: string }[];
  /** readyFor is the clientset whose first exec must go through (default: `admin`). */
  readyFor?: Clientset;
}

/**
 * execPod creates pod `name` (as `admin`) with a kwok Exec object that runs its commands on this
 * machine, and waits until an exec goes through: kwok picks the object up within about a second,
 * so the first exec is retried until it runs.
 */
export async function execPod(
  admin: Clientset,
  namespace: string,
  name: string,
  options: ExecPodOptions,
): Promise<void> {
  const local = { workDir: options.workDir, ...(options.envs ? { envs: options.envs } : {}) };
  await kwokObject(namespace, 'Exec', name, { execs: [{ local }] });
  await runningPod(admin, namespace, name);
  const pods = (options.readyFor ?? admin).coreV1.pods(namespace);
  await eventually(async () => {
    const output = await finish(await pods.exec(name, { command: ['true'] }));
    expect(output.error).toBeUndefined();
  });
}

/** readAll reads a stream to its end as text. */
export async function readAll(stream: Readable | null): Promise<string> {
  if (!stream) return '';
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/** Output is what a finished session wrote and how it ended. */
export interface Output {
  stdout: string;
  stderr: string;
  result: Awaited<RemoteCommandSession['result']> | undefined;
  error: unknown;
}

/** finish writes `input` (then ends stdin) and collects a session's output and result. */
export async function finish(session: RemoteCommandSession, input?: string): Promise<Output> {
  const stdout = readAll(session.stdout);
  const stderr = readAll(session.stderr);
  if (input !== undefined) session.stdin?.end(input);
  let result: Output['result'];
  let error: unknown;
  try {
    result = await session.result;
  } catch (caughtError) {
    error = caughtError;
  }
  return { stdout: await stdout, stderr: await stderr, result, error };
}
