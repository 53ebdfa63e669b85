import { describe, expect, it } from 'vitest';
import { ControlPlaneError } from './errors.js';
import type { ProgressEvent } from './progress.js';
import { runCommand } from './run-command.js';

describe('runCommand', () => {
  it('resolves with the output and reports start and end', async () => {
    const events: ProgressEvent[] = [];
    const result = await runCommand('sh', ['-c', 'echo out; echo err >&2'], {
      step: 'demo',
      onProgress: (event) => events.push(event),
    });
    expect(result).toEqual({ stdout: 'out\n', stderr: 'err\n' });
    expect(events.map((event) => event.kind)).toEqual(['start', 'end']);
  });

  it('sends heartbeats while the command runs', async () => {
    const events: ProgressEvent[] = [];
    await runCommand('sleep', ['0.35'], {
      step: 'wait',
      heartbeatMs: 100,
      onProgress: (event) => events.push(event),
    });
    const heartbeats = events.filter((event) => event.kind === 'heartbeat');
    expect(heartbeats.length).toBeGreaterThanOrEqual(2);
    expect(heartbeats.every((event) => event.step === 'wait' && event.elapsedMs >= 100)).toBe(true);
  });

  it('names the step and shows the tail of the output when the command fails', async () => {
    const script = 'for i in $(seq 1 100); do echo line $i; done; echo boom >&2; exit 3';
    const error = await runCommand('sh', ['-c', script], {
      step: 'go build x',
      tailLines: 5,
    }).catch((caught: unknown) => caught);
    expect(ControlPlaneError.isInstance(error)).toBe(true);
    const failure = error as ControlPlaneError;
    expect(failure.code).toBe('BUILD_FAILED');
    expect(failure.step).toBe('go build x');
    expect(failure.message).toMatch(/step "go build x" failed: .* exited with code 3/);
    expect(failure.logTail?.split('\n')).toEqual([
      'line 97',
      'line 98',
      'line 99',
      'line 100',
      'boom',
    ]);
  });

  it('runs low-priority commands, and everything they start, at nice 10', async () => {
    const result = await runCommand('sh', ['-c', 'nice; sh -c nice'], {
      step: 'niced',
      lowPriority: true,
    });
    expect(result.stdout).toBe('10\n10\n');
  });

  it('reports the pid of the command as soon as it runs', async () => {
    const pids: number[] = [];
    const result = await runCommand('sh', ['-c', 'echo $$'], {
      step: 'pid',
      onSpawn: (pid) => pids.push(pid),
    });
    expect(pids).toEqual([Number(result.stdout.trim())]);
  });

  it('fails clearly when the command does not exist', async () => {
    await expect(runCommand('/nonexistent/tool', [], { step: 'missing' })).rejects.toThrow(
      /step "missing" could not run/,
    );
  });
});
