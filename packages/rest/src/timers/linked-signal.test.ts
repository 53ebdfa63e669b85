import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { linkSignals } from './linked-signal.js';

const run = promisify(execFile);

describe('linkSignals', () => {
  it('aborts with the first source reason and unsubscribes from the others', () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkSignals([first.signal, undefined, second.signal]);
    first.abort(new Error('first'));
    second.abort(new Error('second'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('first');
    expect(linked.timedOut).toBe(false);
  });

  it('is aborted at once by a source that already aborted', () => {
    const source = AbortSignal.abort(new Error('gone'));
    const linked = linkSignals([source], { timeoutMs: 10 });
    expect((linked.signal.reason as Error).message).toBe('gone');
  });

  it('aborts at the deadline with the given reason', async () => {
    const clock = new FakeClock();
    const linked = linkSignals([new AbortController().signal], {
      timeoutMs: 1000,
      timeoutReason: () => new Error('too slow'),
      clock,
    });
    await clock.advance(999);
    expect(linked.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(linked.timedOut).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('too slow');
  });

  it('never aborts after dispose', async () => {
    const clock = new FakeClock();
    const source = new AbortController();
    const linked = linkSignals([source.signal], { timeoutMs: 10, clock });
    linked.dispose();
    await clock.advance(20);
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });

  // Node 20 loses `AbortSignal.any([signal, AbortSignal.timeout(ms)])` once a GC ran before the
  // deadline; only a real process with a real GC shows it.
  it('reaches its deadline in a process that collects garbage before it is due', async () => {
    const program = [
      "import { linkSignals } from './linked-signal.ts';",
      'const stop = new AbortController();',
      'const { signal } = linkSignals([stop.signal], { timeoutMs: 300 });',
      'const aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason.name)));',
      'globalThis.gc();',
      'await new Promise((resolve) => setTimeout(resolve, 50));',
      'globalThis.gc();',
      'console.log(await aborted);',
    ].join('\n');
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', program],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), timeout: 20_000 },
    );
    expect(stdout.trim()).toBe('TimeoutError');
  });
});
