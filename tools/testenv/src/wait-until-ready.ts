import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ControlPlaneError } from './errors.js';
import type { ManagedProcess } from './managed-process.js';

/** POLL_MS is how often readiness is probed: short, as every start waits on these probes in turn. */
const POLL_MS = 50;

/**
 * waitUntilAccepting resolves once something accepts TCP connections on 127.0.0.1:`port`, or as soon
 * as `child` exits or the deadline passes (its readiness wait then reports why).
 */
export async function waitUntilAccepting(
  port: number,
  child: ManagedProcess,
  deadline: number,
): Promise<void> {
  while (!child.exit && Date.now() < deadline) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (accepted) return;
    await Promise.race([sleep(POLL_MS / 2), child.exited]);
  }
}

/**
 * waitUntilReady polls `probe` every 50 ms until it is true, the process exits (PROCESS_EXITED,
 * or PORT_IN_USE when its log says so) or the deadline passes (READY_TIMEOUT, with `diagnose()`'s
 * findings). Errors include the tail of the process's log. A probe that throws counts as not ready.
 */
export async function waitUntilReady(
  child: ManagedProcess,
  deadline: number,
  probe: () => Promise<boolean>,
  diagnose?: () => Promise<string>,
): Promise<void> {
  let lastError = '';
  for (;;) {
    if (child.exit) {
      // Give the log a moment to be flushed by the kernel before reading it.
      await sleep(50);
      const tail = await child.logTail();
      const status = child.exit.signal
        ? `was killed by ${child.exit.signal}`
        : `exited with code ${child.exit.code}`;
      if (/address already in use/i.test(tail)) {
        throw new ControlPlaneError(
          'PORT_IN_USE',
          `${child.name} could not bind its port (address already in use); it ${status}`,
          {
            step: `start ${child.name}`,
            logTail: tail,
          },
        );
      }
      throw new ControlPlaneError(
        'PROCESS_EXITED',
        `${child.name} ${status} while starting (log: ${child.logPath})`,
        {
          step: `start ${child.name}`,
          logTail: tail,
        },
      );
    }
    try {
      if (await probe()) return;
      lastError = 'not ready yet';
    } catch (error) {
      lastError = (error as Error).message;
    }
    if (Date.now() >= deadline) {
      const diagnosis = diagnose ? await diagnose().catch(() => '') : '';
      throw new ControlPlaneError(
        'READY_TIMEOUT',
        `${child.name} was not ready in time (last probe: ${lastError})`,
        {
          step: `start ${child.name}`,
          logTail: [diagnosis, await child.logTail()].filter(Boolean).join('\n'),
        },
      );
    }
    await Promise.race([sleep(POLL_MS), child.exited]);
  }
}
