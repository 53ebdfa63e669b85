interface Listeners {
  readonly callbacks: Set<() => void>;
  readonly dispatch: () => void;
}

const registry = new WeakMap<AbortSignal, Listeners>();

/**
 * onAbort runs `callback` once when `signal` aborts and returns a function that unsubscribes it.
 * However many requests, waits and watches share one signal (an operator's stop signal, say), the
 * signal gets one listener of ours, so Node never warns about a listener leak
 * (`MaxListenersExceededWarning`); the listener is removed when the last subscriber leaves.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let listeners = registry.get(signal);
  if (!listeners) {
    const callbacks = new Set<() => void>();
    const dispatch = (): void => {
      registry.delete(signal);
      for (const subscriber of callbacks) subscriber();
      callbacks.clear();
    };
    listeners = { callbacks, dispatch };
    registry.set(signal, listeners);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  const held = listeners;
  // A wrapper per subscription, so one callback subscribed twice is two subscriptions.
  const subscription = (): void => callback();
  held.callbacks.add(subscription);
  return () => {
    if (!held.callbacks.delete(subscription) || held.callbacks.size > 0) return;
    if (registry.get(signal) === held) registry.delete(signal);
    signal.removeEventListener('abort', held.dispatch);
  };
}
