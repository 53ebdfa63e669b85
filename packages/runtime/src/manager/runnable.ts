/**
 * RunnableContext is what a {@link Runnable} gets besides its stop signal: `leadership`, for a
 * runnable that runs only while this process leads, aborts when leadership is lost involuntarily
 * (another replica may lead already) — even after the stop signal, while it drains. Work must
 * then stop at once, without draining.
 */
export interface RunnableContext {
  leadership?: AbortSignal | undefined;
}

/**
 * Runnable is anything a Manager runs: `start(signal)` works until `signal` aborts, then
 * finishes what it is doing and resolves; a rejection stops the whole Manager. With
 * `needLeaderElection` (the default) it runs only while this process leads.
 */
export interface Runnable {
  start(signal: AbortSignal, context?: RunnableContext): void | Promise<void>;
  needLeaderElection?: boolean | undefined;
}

/** whenAborted resolves when `signal` aborts (at once if it has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
