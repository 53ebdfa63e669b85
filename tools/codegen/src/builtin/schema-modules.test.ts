import { describe, expect, it } from 'vitest';
import { mergeSchemas, schemaLocation } from './schema-modules.js';

describe('schema modules', () => {
  it('maps Go packages to generated modules and refuses unknown ones', () => {
    expect(schemaLocation('io.k8s.api.apps.v1.Deployment')).toEqual({
      module: 'apps/v1',
      name: 'Deployment',
    });
    expect(schemaLocation('io.k8s.apimachinery.pkg.api.resource.Quantity')).toEqual({
      module: 'meta/v1',
      name: 'Quantity',
    });
    expect(
      schemaLocation('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON').module,
    ).toBe('apiextensions/v1');
    expect(() => schemaLocation('com.example.v1.Widget')).toThrow(/no generated module/);
  });

  it('merges the same schema from several documents, joining only the kind lists', () => {
    const gvk = (group: string) => ({ group, version: 'v1', kind: 'DeleteOptions' });
    const merged = mergeSchemas(
      new Map([
        [
          'b',
          {
            components: {
              schemas: { S: { type: 'object', 'x-kubernetes-group-version-kind': [gvk('b')] } },
            },
          },
        ],
        [
          'a',
          {
            components: {
              schemas: { S: { type: 'object', 'x-kubernetes-group-version-kind': [gvk('a')] } },
            },
          },
        ],
      ]),
    );
    expect(merged.get('S')?.['x-kubernetes-group-version-kind']).toEqual([gvk('a'), gvk('b')]);
    expect(() =>
      mergeSchemas(
        new Map([
          ['a', { components: { schemas: { S: { type: 'object' } } } }],
          ['b', { components: { schemas: { S: { type: 'string' } } } }],
        ]),
      ),
    ).toThrow('schema S differs between a and b');
  });
});
