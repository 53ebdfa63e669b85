import { describe, expect, it } from 'vitest';
import { deleteResultOf } from './delete-result.js';

describe('deleteResultOf', () => {
  it('reads a Status as gone', () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Success' };
    expect(deleteResultOf(status)).toEqual({ gone: true, object: undefined, status });
  });

  it('reads an object with a deletionTimestamp as still being deleted', () => {
    const object = { metadata: { name: 'a', deletionTimestamp: '2026-12-01T00:00:00Z' } };
    expect(deleteResultOf(object)).toEqual({ gone: false, object, status: undefined });
  });

  it('reads any other object as deleted and returned as it was', () => {
    const object = { kind: 'ConfigMap', metadata: { name: 'a' } };
    expect(deleteResultOf(object)).toEqual({ gone: true, object, status: undefined });
  });
});
