import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** ChildExit is how a child process ended and all it printed. */
interface ChildExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** FollowedChild is a child process whose output is collected as it comes. */
export interface FollowedChild {
  /** stdout is what the child printed so far. */
  readonly stdout: () => string;
  /** stderr is what the child wrote to stderr so far. */
  readonly stderr: () => string;
  /**
   * waitForStdout resolves when stdout matches `pattern`; it rejects, with stdout and stderr in
   * the message, when the child exits first or after `timeoutMs`.
   */
  readonly waitForStdout: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  /** closed resolves when the child has exited and its output streams are closed. */
  readonly closed: Promise<ChildExit>;
}

/**
 * followChild collects the output of `child` (spawned with piped stdout and stderr) and tells
 * when stdout matches a pattern: each chunk is checked as it arrives, no polling.
 */
export function followChild(child: ChildProcessByStdio<null, Readable, Readable>): FollowedChild {
  let stdout = '';
  let stderr = '';
  let exited = false;
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const watcher of watchers) watcher();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = new Promise<ChildExit>((resolve, reject) => {
    child.once('error', (error) => {
      exited = true;
      for (const watcher of watchers) watcher();
      reject(error);
    });
    child.once('close', (exitCode, signal) => {
      exited = true;
      for (const watcher of watchers) watcher();
      resolve({ exitCode, signal, stdout, stderr });
    });
  });
  // A child that fails to start rejects closed; waitForStdout reports it through its own check.
  closed.catch(() => undefined);

  return {
    stdout: () => stdout,
    stderr: () => stderr,
    closed,
    waitForStdout: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const fail = (reason: string) => {
          watchers.delete(check);
          clearTimeout(timer);
          reject(new Error(`${reason} ${pattern}:\n${stdout}\nstderr:\n${stderr}`));
        };
        const timer = setTimeout(
          () => fail(`stdout did not match within ${timeoutMs}ms`),
          timeoutMs,
        );
        function check(): void {
          const match = stdout.match(pattern);
          if (match) {
            watchers.delete(check);
            clearTimeout(timer);
            resolve(match);
          } else if (exited) {
            // Only after 'close': output may still arrive between 'exit' and then.
            fail('the program exited before stdout matched');
          }
        }
        watchers.add(check);
        check();
      }),
  };
}
