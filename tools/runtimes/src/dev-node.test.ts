import { describe, expect, it } from 'vitest';
import { compareVersions, devNodeDecision, floorOf } from './dev-node.js';

describe('floorOf', () => {
  it('reads >=X.Y.Z and refuses every other range', () => {
    expect(floorOf('>=22.19.0')).toBe('22.19.0');
    expect(floorOf(' >= v22.19.0 ')).toBe('22.19.0');
    for (const range of [undefined, '^22.19.0', '>=22', '22.x', '>=22.19.0 <27']) {
      expect(() => floorOf(range)).toThrow(/is not of the form ">=X\.Y\.Z"/);
    }
  });
});

describe('compareVersions', () => {
  it('orders by major, minor, then patch, numerically', () => {
    expect(compareVersions('20.20.2', '22.19.0')).toBeLessThan(0);
    expect(compareVersions('22.18.9', '22.19.0')).toBeLessThan(0);
    expect(compareVersions('v22.19.0', '22.19.0')).toBe(0);
    expect(compareVersions('22.19.10', '22.19.9')).toBeGreaterThan(0);
    expect(compareVersions('26.0.0-pre', '26.0.0')).toBe(0);
  });
});

describe('devNodeDecision', () => {
  it('keeps a Node at or above the floor', () => {
    expect(devNodeDecision('22.19.0', '22.19.0', '24.22.3')).toEqual({
      switches: false,
      message: undefined,
    });
    expect(devNodeDecision('26.12.1', '22.19.0', '24.22.3').switches).toBe(false);
  });

  it('switches an older Node to the primary line, saying so in one line', () => {
    const decision = devNodeDecision('20.20.2', '22.19.0', '24.22.3');
    expect(decision.switches).toBe(true);
    expect(decision.message).toBe(
      "k-runtimes: Node 20.20.2 is older than this workspace's floor 22.19.0: running on Node 24.22.3 from tools/runtimes",
    );
  });
});
