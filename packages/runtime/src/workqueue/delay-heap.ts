interface Waiting<K> {
  key: K;
  readyAt: number;
}

/**
 * DelayHeap holds keys waiting for a time, earliest first (a binary min-heap). A key waits once:
 * adding it again with an earlier time moves it up, with a later time changes nothing (client-go's
 * delaying queue). Stale heap entries are skipped lazily.
 */
export class DelayHeap<K> {
  readonly #heap: Waiting<K>[] = [];
  readonly #readyAt = new Map<K, number>();

  get size(): number {
    return this.#readyAt.size;
  }

  /** add makes `key` wait until `readyAt`, or until its earlier time when it already waits. */
  add(key: K, readyAt: number): void {
    const current = this.#readyAt.get(key);
    if (current !== undefined && current <= readyAt) return;
    this.#readyAt.set(key, readyAt);
    this.#push({ key, readyAt });
  }

  /** nextReadyAt is the earliest waiting time, or undefined when nothing waits. */
  nextReadyAt(): number | undefined {
    this.#dropStale();
    return this.#heap[0]?.readyAt;
  }

  /** takeReady removes and returns every key whose time is ≤ `now`, earliest first. */
  takeReady(now: number): K[] {
    const ready: K[] = [];
    for (;;) {
      this.#dropStale();
      const top = this.#heap[0];
      if (!top || top.readyAt > now) return ready;
      this.#pop();
      this.#readyAt.delete(top.key);
      ready.push(top.key);
    }
  }

  clear(): void {
    this.#heap.length = 0;
    this.#readyAt.clear();
  }

  #dropStale(): void {
    for (;;) {
      const top = this.#heap[0];
      if (!top || this.#readyAt.get(top.key) === top.readyAt) return;
      this.#pop();
    }
  }

  #push(entry: Waiting<K>): void {
    const heap = this.#heap;
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.readyAt <= entry.readyAt) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (!last || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && heap[right]!.readyAt < heap[left]!.readyAt ? right : left;
      if (heap[child]!.readyAt >= last.readyAt) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
  }
}
