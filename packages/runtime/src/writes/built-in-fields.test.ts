import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  builtInListType,
  isBuiltInQuantity,
  type GroupKind,
  type ListType,
} from './built-in-fields.js';

// The tables are checked against the API server's own OpenAPI documents, recorded by
// tools/codegen (its newest snapshot): every list and every scalar of every built-in kind.

interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string;
  default?: unknown;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-group-version-kind'?: { group: string; kind: string; version: string }[];
}

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

function snapshotSchemas(): { version: string; schemas: Record<string, Schema> } {
  const root = fileURLToPath(new URL('../../../../tools/codegen/snapshot', import.meta.url));
  const numeric = (version: string) => version.split('.').map(Number);
  const [version] = readdirSync(root).sort((a, b) => {
    const [left, right] = [numeric(a), numeric(b)];
    const differing = left.findIndex((part, index) => part !== right[index]);
    return differing === -1 ? 0 : right[differing]! - left[differing]!;
  });
  const schemas: Record<string, Schema> = {};
  const read = (directory: string) => {
    for (const name of readdirSync(directory)) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) read(path);
      else if (name.endsWith('.json') && name !== 'index.json') {
        const document = JSON.parse(readFileSync(path, 'utf8')) as {
          components?: { schemas?: Record<string, Schema> };
        };
        Object.assign(schemas, document.components?.schemas);
      }
    }
  };
  read(join(root, version!, 'openapi'));
  return { version: version!, schemas };
}

/** What the schema says of one path of one kind. */
interface Found {
  lists: Map<string, ListType>;
  scalars: Map<string, boolean>;
}

function referenceOf(schema: Schema): string | undefined {
  return (schema.$ref ?? schema.allOf?.[0]?.$ref)?.split('/').at(-1);
}

/** walk records every list and scalar under `schema`, each type once per path (recursive types stop). */
function walk(
  schemas: Record<string, Schema>,
  schema: Schema,
  path: string[],
  seen: readonly string[],
  found: Found,
): void {
  const name = referenceOf(schema);
  if (name === QUANTITY) {
    found.scalars.set(path.join('.'), true);
    return;
  }
  if (name !== undefined) {
    const target = schemas[name];
    if (target && !seen.includes(name)) walk(schemas, target, path, [...seen, name], found);
    return;
  }
  if (schema.type === 'array') {
    const listType = schema['x-kubernetes-list-type'] ?? 'atomic';
    let type: ListType = { type: listType === 'map' ? 'atomic' : listType };
    if (listType === 'map') {
      const keys = schema['x-kubernetes-list-map-keys']!;
      const itemName = referenceOf(schema.items ?? {});
      const item = itemName ? schemas[itemName] : schema.items;
      const defaults = Object.fromEntries(
        keys.flatMap((key) => {
          const value = item?.properties?.[key]?.default;
          // A zero value (`''`, `0`) is only the schema's type: such a key is required.
          return value === undefined || value === '' || value === 0 ? [] : [[key, value]];
        }),
      ) as Record<string, string>;
      type = {
        type: 'map',
        keys,
        ...(Object.keys(defaults).length ? { keyDefaults: defaults } : {}),
      };
    }
    found.lists.set(path.join('.'), type);
    walk(schemas, schema.items ?? {}, path, seen, found);
    return;
  }
  for (const [field, property] of Object.entries(schema.properties ?? {})) {
    walk(schemas, property, [...path, field], seen, found);
  }
  if (typeof schema.additionalProperties === 'object') {
    walk(schemas, schema.additionalProperties, [...path, '*'], seen, found);
  }
  if (!schema.properties && !schema.additionalProperties && schema.type !== 'object') {
    if (!found.scalars.has(path.join('.'))) found.scalars.set(path.join('.'), false);
  }
}

describe('the built-in field tables', () => {
  const { version, schemas } = snapshotSchemas();
  const kinds = Object.entries(schemas).flatMap(([name, schema]) =>
    (schema['x-kubernetes-group-version-kind'] ?? [])
      .filter(({ kind }) => !kind.endsWith('List'))
      .map(({ group, kind }) => ({ name, schema, type: { group, kind } satisfies GroupKind })),
  );

  it(`cover the recorded OpenAPI of Kubernetes ${version}`, () => {
    expect(kinds.length).toBeGreaterThan(70);
  });

  it('give every list of every built-in kind its list type, keys and defaulted keys', () => {
    const wrong: string[] = [];
    let keyed = 0;
    for (const { name, schema, type } of kinds) {
      const found: Found = { lists: new Map(), scalars: new Map() };
      walk(schemas, schema, [], [name], found);
      for (const [path, expected] of found.lists) {
        const actual = builtInListType(path === '' ? [] : path.split('.'), type) ?? {
          type: 'atomic',
        };
        if (expected.type === 'map') keyed++;
        if (JSON.stringify(actual) !== JSON.stringify(expected)) {
          wrong.push(
            `${type.kind} ${path}: ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(keyed).toBeGreaterThan(100);
  });

  it('know every quantity of every built-in kind, and nothing else as one', () => {
    const wrong: string[] = [];
    let quantities = 0;
    for (const { name, schema, type } of kinds) {
      const found: Found = { lists: new Map(), scalars: new Map() };
      walk(schemas, schema, [], [name], found);
      for (const [path, expected] of found.scalars) {
        if (expected) quantities++;
        if (isBuiltInQuantity(path.split('.'), type) !== expected) {
          wrong.push(`${type.kind} ${path}: ${expected ? 'a quantity' : 'no quantity'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(quantities).toBeGreaterThan(100);
  });
});

describe('builtInListType', () => {
  const pod: GroupKind = { group: '', kind: 'Pod' };

  it('keys container ports by port and protocol, defaulting the protocol, and Service ports alike', () => {
    expect(builtInListType(['spec', 'containers', 'ports'], pod)).toEqual({
      type: 'map',
      keys: ['containerPort', 'protocol'],
      keyDefaults: { protocol: 'TCP' },
    });
    expect(builtInListType(['spec', 'ports'], { group: '', kind: 'Service' })).toMatchObject({
      keys: ['port', 'protocol'],
    });
    // A NetworkPolicy's ports are atomic, and so is `spec.ports` of any other kind.
    expect(
      builtInListType(['spec', 'ingress', 'ports'], {
        group: 'networking.k8s.io',
        kind: 'NetworkPolicy',
      }),
    ).toBeUndefined();
    expect(
      builtInListType(['spec', 'ports'], { group: 'example.com', kind: 'Service' }),
    ).toBeUndefined();
  });

  it('holds where a custom resource embeds a Pod template', () => {
    const widget: GroupKind = { group: 'example.com', kind: 'Widget' };
    const containers = ['spec', 'podTemplate', 'spec', 'containers'];
    expect(builtInListType(containers, widget)).toEqual({ type: 'map', keys: ['name'] });
    expect(builtInListType([...containers, 'env'], widget)).toEqual({
      type: 'map',
      keys: ['name'],
    });
    expect(builtInListType(['spec', 'podTemplate', 'spec', 'volumes'], widget)).toMatchObject({
      keys: ['name'],
    });
  });

  it('makes one kind’s exception: a Job’s conditions are atomic', () => {
    expect(builtInListType(['status', 'conditions'], { group: 'batch', kind: 'Job' })).toEqual({
      type: 'atomic',
    });
    expect(
      builtInListType(['status', 'conditions'], { group: 'apps', kind: 'Deployment' }),
    ).toEqual({
      type: 'map',
      keys: ['type'],
    });
  });

  it('has nothing for the root, or for a path no rule names', () => {
    expect(builtInListType([], pod)).toBeUndefined();
    expect(builtInListType(['spec', 'args'], pod)).toBeUndefined();
    expect(builtInListType(['__proto__'], pod)).toBeUndefined();
  });
});

describe('isBuiltInQuantity', () => {
  it('knows quantities by their place, in any built-in kind', () => {
    const limits = ['spec', 'template', 'spec', 'containers', 'resources', 'limits', 'cpu'];
    expect(isBuiltInQuantity(limits, { group: 'apps', kind: 'Deployment' })).toBe(true);
    expect(
      isBuiltInQuantity(['spec', 'capacity', 'storage'], { group: '', kind: 'PersistentVolume' }),
    ).toBe(true);
    expect(isBuiltInQuantity(['spec', 'hard', 'pods'], { group: '', kind: 'ResourceQuota' })).toBe(
      true,
    );
    expect(
      isBuiltInQuantity(['status', 'allocatable', 'memory'], { group: '', kind: 'Node' }),
    ).toBe(true);
    expect(
      isBuiltInQuantity(['capacity'], { group: 'storage.k8s.io', kind: 'CSIStorageCapacity' }),
    ).toBe(true);
  });

  it('leaves fields of the same names elsewhere alone', () => {
    expect(
      isBuiltInQuantity(['spec', 'hard', 'pods'], { group: 'example.com', kind: 'Quota' }),
    ).toBe(false);
    expect(isBuiltInQuantity(['metadata', 'name'], { group: '', kind: 'Pod' })).toBe(false);
    expect(isBuiltInQuantity(['spec', 'limits', 'type'], { group: '', kind: 'LimitRange' })).toBe(
      false,
    );
    expect(isBuiltInQuantity(['capacity'], { group: 'example.com', kind: 'Disk' })).toBe(false);
  });
});
