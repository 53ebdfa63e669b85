import { describe, expect, it } from 'vitest';
import { ClientsetError } from '../errors.js';
import { parseManifests } from './apply-manifests.js';

describe('parseManifests', () => {
  it('reads every document in order, skips empty ones and expands lists', async () => {
    const objects = await parseManifests(`
---
apiVersion: v1
kind: ConfigMap
metadata: { name: a }
data: { enabled: yes }
---
# only a comment
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Secret
    metadata: { name: b }
  - apiVersion: apps/v1
    kind: Deployment
    metadata: { name: c, namespace: other }
`);
    expect(objects.map((object) => `${object.kind}/${object.metadata?.name}`)).toEqual([
      'ConfigMap/a',
      'Secret/b',
      'Deployment/c',
    ]);
    // YAML 1.1, as kubectl reads manifests.
    expect(objects[0]?.data).toEqual({ enabled: true });
  });

  it('reads JSON too', async () => {
    expect(
      await parseManifests('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n"}}'),
    ).toHaveLength(1);
  });

  it.each([
    ['apiVersion: v1\nkind: [', /^document 1 is not valid yaml/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n- a list\n',
      /^document 2 is not a kubernetes object/,
    ],
    ['kind: ConfigMap\nmetadata: {name: a}\n', /^document 1 is not a kubernetes object/],
    [
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n',
      /^document 1 \(ConfigMap\) has no metadata.name/,
    ],
  ])('fails with ERR_MANIFEST naming the document: %j', async (text, message) => {
    let failure: unknown;
    try {
      await parseManifests(text);
    } catch (error) {
      failure = error;
    }
    expect(ClientsetError.isInstance(failure) && failure.code).toBe('ERR_MANIFEST');
    expect((failure as Error).message).toMatch(message);
  });
});
