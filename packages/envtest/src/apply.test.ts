import type { Clientset } from '@k/clientset';
import { describe, expect, it } from 'vitest';
import { applyAs, manifestText } from './apply.js';
import type { TestUser } from './types.js';

/** A user whose clientset records what applyManifests was given (no server is involved). */
function recordingUser() {
  const calls: { text: string; options: Record<string, unknown> }[] = [];
  const clientset = {
    applyManifests: (text: string, options: Record<string, unknown>) => {
      calls.push({ text, options });
      return Promise.resolve([]);
    },
  } as unknown as Clientset;
  const user: Pick<TestUser, 'clientset'> = { clientset: () => Promise.resolve(clientset) };
  return { user, calls };
}

describe('manifestText', () => {
  it('keeps text and turns objects into one JSON document each', () => {
    expect(manifestText('kind: A\n')).toBe('kind: A\n');
    expect(manifestText([{ kind: 'A' }, { kind: 'B' }])).toBe('{"kind":"A"}\n---\n{"kind":"B"}');
    expect(manifestText([])).toBe('');
  });

  it('refuses what is neither', () => {
    expect(() => manifestText([1] as unknown as object[])).toThrow(
      /manifests\[0\] is not an object/,
    );
    expect(() => manifestText(5 as unknown as string)).toThrow(
      expect.objectContaining({ code: 'ERR_ENVTEST_INVALID_OPTIONS' }),
    );
  });
});

describe('applyAs', () => {
  it('server-side applies with force as k-envtest, in the namespace given', async () => {
    const { user, calls } = recordingUser();
    await applyAs(user, [{ kind: 'A' }], { namespace: 'team' });
    await applyAs(user, 'kind: B\n', { fieldManager: 'mine', namespace: undefined });
    expect(calls).toEqual([
      {
        text: '{"kind":"A"}',
        options: { fieldManager: 'k-envtest', force: true, namespace: 'team' },
      },
      { text: 'kind: B\n', options: { fieldManager: 'mine', force: true } },
    ]);
  });

  it('refuses bad options before sending anything', async () => {
    const { user, calls } = recordingUser();
    await expect(applyAs(user, 'x', { namespace: '' })).rejects.toMatchObject({
      code: 'ERR_ENVTEST_INVALID_OPTIONS',
    });
    expect(calls).toEqual([]);
  });
});
