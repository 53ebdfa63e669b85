import { describe, expect, it } from 'vitest';
import { INSTALL_HINT_HELP, InstallHintLimiter } from './install-hint-limiter.js';

describe('InstallHintLimiter', () => {
  it('allows threshold hints per window (client-go TestInstallHintRateLimit: 2 per 1s over 10 calls)', () => {
    let now = 0;
    const limiter = new InstallHintLimiter(() => now, 2, 1000);
    let allowed = 0;
    for (let call = 0; call < 10; call++) if (limiter.allow()) allowed++;
    expect(allowed).toBe(2);
    now = 1000;
    expect(limiter.allow()).toBe(true);
  });

  it('D13: builds the not-found message with help and hint, then without them', () => {
    const limiter = new InstallHintLimiter(() => 0, 1, 1000);
    expect(limiter.notFoundMessage('does not exist', 'some install hint')).toBe(
      `exec: executable does not exist not found\n\n${INSTALL_HINT_HELP}\n\nsome install hint`,
    );
    expect(limiter.notFoundMessage('does not exist', 'some install hint')).toBe(
      'exec: executable does not exist not found',
    );
  });

  it('defaults to 10 per hour', () => {
    let now = 0;
    const limiter = new InstallHintLimiter(() => now);
    const shown = Array.from({ length: 12 }, () => limiter.allow()).filter(Boolean).length;
    expect(shown).toBe(10);
    now = 59 * 60 * 1000;
    expect(limiter.allow()).toBe(false);
    now = 60 * 60 * 1000;
    expect(limiter.allow()).toBe(true);
  });
});
