import { describe, expect, it } from 'vitest';
import { isInteractive } from './is-interactive.js';

const message = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
};

describe('isInteractive', () => {
  it('D1: IfAvailable without a terminal is not interactive', () => {
    expect(isInteractive('IfAvailable', { isTerminal: false }, 'p')).toBe(false);
  });

  it('D2: IfAvailable with a terminal is interactive', () => {
    expect(isInteractive('IfAvailable', { isTerminal: true }, 'p')).toBe(true);
  });

  it('D3: IfAvailable with a terminal but stdin unavailable is not interactive', () => {
    expect(isInteractive('IfAvailable', { isTerminal: true, stdinUnavailable: true }, 'p')).toBe(
      false,
    );
  });

  it('D4: Always without a terminal fails', () => {
    expect(message(() => isInteractive('Always', { isTerminal: false }, 'p'))).toBe(
      'exec plugin cannot support interactive mode: standard input is not a terminal',
    );
  });

  it('D5: Always with stdin unavailable fails with the reason', () => {
    expect(
      message(() =>
        isInteractive('Always', { isTerminal: true, stdinUnavailable: 'some message' }, 'p'),
      ),
    ).toBe(
      'exec plugin cannot support interactive mode: standard input is unavailable: some message',
    );
    expect(
      message(() => isInteractive('Always', { isTerminal: true, stdinUnavailable: true }, 'p')),
    ).toBe('exec plugin cannot support interactive mode: standard input is unavailable');
  });

  it('D6: no or an unknown interactiveMode fails', () => {
    expect(message(() => isInteractive(undefined, { isTerminal: false }, 'p'))).toBe(
      'exec plugin cannot support interactive mode: unknown interactiveMode: ""',
    );
    expect(message(() => isInteractive('Sometimes', { isTerminal: true }, 'p'))).toBe(
      'exec plugin cannot support interactive mode: unknown interactiveMode: "Sometimes"',
    );
  });

  it('Never is never interactive and Always with a terminal always is', () => {
    expect(isInteractive('Never', { isTerminal: true }, 'p')).toBe(false);
    expect(isInteractive('Always', { isTerminal: true }, 'p')).toBe(true);
  });
});
