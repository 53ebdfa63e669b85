import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeExtraKey, impersonationHeaders } from './impersonation-headers.js';

describe('escapeExtraKey', () => {
  it.each([
    ['first', 'first'],
    ['test.example.com/thing.thing', 'test.example.com%2Fthing.thing'],
    [
      'test.example.com/thing.thing%20another.thing',
      'test.example.com%2Fthing.thing%2520another.thing',
    ],
    ['@=:', '%40%3D%3A'],
    ["!#$&'*+-.^_`|~", "!#$&'*+-.^_`|~"],
    ['a b', 'a%20b'],
    ['ᛒ', '%E1%9B%92'],
  ])('escapes %j as client-go does', (key, escaped) => {
    expect(escapeExtraKey(key)).toBe(escaped);
  });

  it('round-trips through percent-decoding for every key (TestHeaderEscapeRoundTrip)', () => {
    for (const key of ['@=:', 'ᛒᚥᛏᛖᚥᚢとロビン', 'almost%zzpercent%xxencoded']) {
      expect(decodeURIComponent(escapeExtraKey(key))).toBe(key);
    }
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (key) => {
        expect(decodeURIComponent(escapeExtraKey(key))).toBe(key);
        expect(escapeExtraKey(key)).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]*$/);
      }),
    );
  });
});

describe('impersonationHeaders', () => {
  it('builds user, uid, one header per group and one per extra value (C9)', () => {
    expect(
      impersonationHeaders({
        user: 'user',
        uid: 'uid-a',
        groups: ['one', 'two'],
        extra: new Map([['first', ['A', 'a']]]),
      }),
    ).toEqual([
      'impersonate-user',
      'user',
      'impersonate-uid',
      'uid-a',
      'impersonate-group',
      'one',
      'impersonate-group',
      'two',
      'impersonate-extra-first',
      'A',
      'impersonate-extra-first',
      'a',
    ]);
  });

  it('always sends Impersonate-User once anything is set, and nothing when nothing is', () => {
    expect(impersonationHeaders({ user: '', groups: ['g'], extra: new Map() })).toEqual([
      'impersonate-user',
      '',
      'impersonate-group',
      'g',
    ]);
    expect(impersonationHeaders({ user: '', groups: [], extra: new Map([['k', []]]) })).toEqual([]);
  });
});
