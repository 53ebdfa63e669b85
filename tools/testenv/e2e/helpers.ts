import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** KubectlResult is the outcome of one kubectl run (it never throws for a non-zero exit). */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** kubectl runs the real kubectl with the given kubeconfig (and context, default the current one). */
export function kubectl(
  kubeconfigPath: string,
  args: readonly string[],
  context?: string,
): Promise<KubectlResult> {
  const fullArgs = [
    '--kubeconfig',
    kubeconfigPath,
    ...(context ? ['--context', context] : []),
    ...args,
  ];
  return new Promise((resolve) => {
    execFile('kubectl', fullArgs, { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** waitFor polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** processesMentioning lists the pids of live processes whose command line contains `text`. */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) pids.push(pid);
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

/** childrenOf lists the pids of live processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may contain spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}

/** isAlive is true while a process with this pid exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

function decodeAddress(hex: string): string {
  const [address, port] = hex.split(':') as [string, string];
  if (address.length === 8) {
    const bytes = address
      .match(/../g)!
      .map((byte) => parseInt(byte, 16))
      .reverse();
    return `${bytes.join('.')}:${parseInt(port, 16)}`;
  }
  // IPv6 in /proc is four little-endian 32-bit words.
  const words = address.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(''));
  return `[${words.join('').match(/.{4}/g)!.join(':')}]:${parseInt(port, 16)}`;
}

/**
 * listeningAddresses returns the local addresses (`ip:port`) of the TCP sockets a process listens
 * on, read from /proc (no ss or netstat needed).
 */
export function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // Closed while we looked.
    }
  }
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9]!)) addresses.push(decodeAddress(fields[1]!));
    }
  }
  return addresses;
}
