import { describe, expect, it } from 'vitest';
import { hasHeader, toHeaderList, withHeaders } from './header-list.js';

describe('header lists', () => {
  it('flattens every header form undici accepts', () => {
    expect(toHeaderList(undefined)).toEqual([]);
    expect(toHeaderList({ a: '1', b: ['2', '3'], c: undefined })).toEqual([
      'a',
      '1',
      'b',
      '2',
      'b',
      '3',
    ]);
    expect(toHeaderList(['a', '1', 'a', '2'])).toEqual(['a', '1', 'a', '2']);
    expect(toHeaderList(new Map([['a', '1']]))).toEqual(['a', '1']);
    expect(toHeaderList([['a', ['1', '2']]] as Iterable<[string, string[]]>)).toEqual([
      'a',
      '1',
      'a',
      '2',
    ]);
  });

  it('finds a header case-insensitively in every form', () => {
    expect(hasHeader({ Authorization: 'x' }, 'authorization')).toBe(true);
    expect(hasHeader({ authorization: undefined }, 'authorization')).toBe(false);
    expect(hasHeader(['AUTHORIZATION', 'x'], 'authorization')).toBe(true);
    expect(hasHeader(new Map([['Authorization', 'x']]), 'authorization')).toBe(true);
    expect(hasHeader(null, 'authorization')).toBe(false);
  });

  it('appends without touching the original', () => {
    const original = { a: '1' };
    expect(withHeaders(original, ['b', '2'])).toEqual(['a', '1', 'b', '2']);
    expect(original).toEqual({ a: '1' });
  });
});
