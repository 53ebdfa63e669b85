import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ControlPlaneError } from './errors.js';
import type { ClientIdentity } from './pki.js';

/** STATE_FILE_NAME is the file beside the kubeconfig that describes a running control plane. */
export const STATE_FILE_NAME = 'control-plane.json';

/** ControlPlaneUsers are the provisioned identities. */
export interface ControlPlaneUsers {
  /** Client certificate in `system:masters` (bypasses authorization). */
  readonly admin: ClientIdentity;
  /** Client certificate with no RBAC bindings: every request is Forbidden (403). */
  readonly alice: ClientIdentity;
  /** Static bearer token (`--token-auth-file`), bound to the `edit` ClusterRole cluster-wide. */
  readonly tester: { readonly token: string };
}

/**
 * ControlPlaneConnection is everything a test needs to talk to a running control plane. It is plain
 * JSON, so it crosses process boundaries (vitest `provide`, the state file).
 */
export interface ControlPlaneConnection {
  /** The kubeconfig with contexts `admin` (current), `alice` and `tester`. */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:PORT`. */
  readonly server: string;
  /** The CA that signed the serving and client certificates. */
  readonly caPem: string;
  readonly users: ControlPlaneUsers;
  /** kube-apiserver's audit log (JSON lines, Metadata level); read it with `readAuditLog`. */
  readonly auditLogPath: string;
}

/** ControlPlaneState is the state file's content: the connection plus what `stop` needs. */
export interface ControlPlaneState extends ControlPlaneConnection {
  readonly runDir: string;
  readonly kubernetesVersion: string;
  readonly ports: Readonly<Record<string, number>>;
  /** The fake nodes' names. */
  readonly nodes?: readonly string[];
  readonly processes: readonly { readonly name: string; readonly pid: number }[];
  readonly watchdogPid: number | undefined;
  readonly startedAt: string;
}

/** writeControlPlaneState writes the state file beside the kubeconfig (mode 0600: it holds keys). */
export async function writeControlPlaneState(state: ControlPlaneState): Promise<string> {
  const path = join(dirname(state.kubeconfigPath), STATE_FILE_NAME);
  await writeFile(path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * readControlPlaneState reads the state file of the control plane whose kubeconfig is at
 * `kubeconfigPath` (as written by startControlPlane). Throws NOT_RUNNING when it is missing.
 */
export function readControlPlaneState(kubeconfigPath: string): ControlPlaneState {
  const path = join(dirname(kubeconfigPath), STATE_FILE_NAME);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ControlPlaneState;
  } catch (error) {
    throw new ControlPlaneError(
      'NOT_RUNNING',
      `${kubeconfigPath} is not a k-testenv kubeconfig (no readable ${path}); start one with \`k-testenv up\``,
      { cause: error },
    );
  }
}

/** toConnection keeps only the connection fields of a state (what tests get). */
export function toConnection(state: ControlPlaneConnection): ControlPlaneConnection {
  return {
    kubeconfigPath: state.kubeconfigPath,
    server: state.server,
    caPem: state.caPem,
    users: state.users,
    auditLogPath: state.auditLogPath,
  };
}
