import { describe, expect, it } from 'vitest';
import { withDefaults } from './with-defaults.js';

describe('withDefaults', () => {
  it('keeps a default for an option passed as undefined, lets every other value win', () => {
    const defaults = { name: 'default', count: 3, enabled: true, extra: 'kept' };
    const merged = withDefaults<{
      name?: string | undefined;
      count?: number | null | undefined;
      enabled?: boolean | undefined;
      extra?: string | undefined;
      other?: string | undefined;
    }>(defaults, { name: undefined, count: null, enabled: false, other: undefined });
    expect(merged).toEqual({ name: 'default', count: null, enabled: false, extra: 'kept' });
    expect(Object.keys(merged)).not.toContain('other');
    expect(defaults).toEqual({ name: 'default', count: 3, enabled: true, extra: 'kept' });
  });
});
