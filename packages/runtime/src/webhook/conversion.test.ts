import { describe, expect, it } from 'vitest';
import { RuntimeError } from '../errors.js';
import type { LogFields, Logger } from '../logger.js';
import {
  conversionHandler,
  DEFAULT_MAX_OBJECTS,
  type ConversionDefinition,
  type ConversionHandlerOptions,
} from './conversion.js';
import type {
  ConversionRequest,
  ConversionResponse,
  ConversionResult,
  ConversionReview,
} from './conversion-review.js';
import { GROUP, STASH, webAppConversion } from './__fixtures__/webapp-conversion.js';
import type { WebhookReply } from './webhook-handler.js';
import { stringifyJson, type JsonValue } from './json-patch.js';

interface Logged {
  level: string;
  message: string;
  fields: LogFields | undefined;
}

function recordingLogger(lines: Logged[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, fields });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

interface Call {
  reply: WebhookReply;
  review: ConversionReview;
  logged: Logged[];
}

async function callWith(
  definitions: readonly ConversionDefinition<unknown>[],
  body: string | Uint8Array,
  options: ConversionHandlerOptions & { signal?: AbortSignal } = {},
): Promise<Call> {
  const logged: Logged[] = [];
  const handler = conversionHandler(definitions, options);
  const reply = await handler({
    body: typeof body === 'string' ? new TextEncoder().encode(body) : body,
    contentType: 'application/json',
    signal: options.signal ?? new AbortController().signal,
    logger: recordingLogger(logged),
  });
  // What the server sends: the reply must survive JSON encoding.
  const review = JSON.parse(stringifyJson(reply.body as JsonValue)) as ConversionReview;
  return { reply, review, logged };
}

function reviewOf(desiredAPIVersion: string, objects: unknown[], uid = 'uid-1'): string {
  const request: ConversionRequest = { uid, desiredAPIVersion, objects };
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request,
  });
}

function alpha(name: string, spec: Record<string, unknown> = {}, metadata = {}) {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'WebApp',
    metadata: { name, namespace: 'team-a', uid: `uid-${name}`, resourceVersion: '7', ...metadata },
    spec: { image: 'shop:1', ...spec },
  };
}

function hub(name: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'WebApp',
    metadata: { name, namespace: 'team-a', uid: `uid-${name}`, resourceVersion: '9' },
    spec: { image: 'shop:1', ...spec },
  };
}

/** LooseMetadata is what the test converters read and change of an object's metadata. */
interface LooseMetadata {
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { name: string; uid: string }[];
  [field: string]: unknown;
}

/** Loose is any object a test converter handles, loosely typed. */
interface Loose {
  apiVersion?: string;
  kind?: string;
  metadata: LooseMetadata;
  spec: Record<string, unknown>;
}

type LooseDefinition = ConversionDefinition<Loose, Record<string, Loose>>;

const passThrough: LooseDefinition = {
  group: GROUP,
  kind: 'WebApp',
  plural: 'webapps',
  hub: 'v1',
  spokes: { v1alpha1: { toHub: (old) => old, fromHub: (current) => current } },
};

type Converted = Required<Loose>;

function firstOwner(object: Loose): { name: string; uid: string } {
  const [owner] = object.metadata.ownerReferences ?? [];
  if (owner === undefined) throw new Error('the test object has no owner');
  return owner;
}

function converted(call: Call): Converted[] {
  return call.review.response?.convertedObjects as Converted[];
}

function failure(call: Call): string {
  const response: ConversionResponse | undefined = call.review.response;
  const result: ConversionResult | undefined = response?.result;
  expect(result?.status).toBe('Failure');
  return result?.message ?? '';
}

describe('conversionHandler answers', () => {
  it('every object converted, in order, with the uid echoed and apiVersion and kind set', async () => {
    const objects = [
      alpha('a', { size: 'large', host: 'a.example' }),
      hub('b', { replicas: 3, hosts: ['b.example'] }),
      alpha('c', { size: 'small' }),
    ];
    const call = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, objects, 'uid-42'));
    expect(call.reply.status).toBe(200);
    expect(call.review).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: 'uid-42', result: { status: 'Success' } },
    });
    const answer = converted(call);
    expect(answer.map((object) => object.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(answer.every((object) => object.apiVersion === `${GROUP}/v1`)).toBe(true);
    expect(answer.every((object) => object.kind === 'WebApp')).toBe(true);
    expect(answer[0]?.spec).toEqual({ image: 'shop:1', replicas: 5, hosts: ['a.example'] });
    expect(answer[1]?.spec).toEqual({ image: 'shop:1', replicas: 3, hosts: ['b.example'] });
    expect(answer[2]?.spec).toEqual({ image: 'shop:1', replicas: 1 });
  });

  it('the hub down to a spoke, stashing what the spoke cannot hold in an annotation', async () => {
    const call = await callWith(
      [webAppConversion],
      reviewOf(`${GROUP}/v1alpha1`, [hub('b', { replicas: 4, hosts: ['x', 'y'] })]),
    );
    const [object] = converted(call);
    expect(object?.apiVersion).toBe(`${GROUP}/v1alpha1`);
    expect(object?.spec).toEqual({ image: 'shop:1', size: 'large' });
    expect(JSON.parse(object?.metadata.annotations?.[STASH] ?? '')).toEqual({
      replicas: 4,
      hosts: ['x', 'y'],
    });
  });

  it('one spoke to another through the hub, and an object already in the desired version unchanged', async () => {
    const steps: string[] = [];
    const numbered: ConversionDefinition<{ spec: { n: number } }> = {
      group: GROUP,
      kind: 'Counter',
      plural: 'counters',
      hub: 'v2',
      spokes: {
        v1: {
          toHub: (old: { spec: { count: number } }) => {
            steps.push('v1→hub');
            return { spec: { n: old.spec.count } };
          },
          fromHub: (current) => {
            steps.push('hub→v1');
            return { spec: { count: current.spec.n } };
          },
        },
        v3: {
          toHub: (next: { spec: { value: number } }) => {
            steps.push('v3→hub');
            return { spec: { n: next.spec.value } };
          },
          fromHub: (current) => {
            steps.push('hub→v3');
            return { spec: { value: current.spec.n } };
          },
        },
      },
    };
    const object = (version: string, spec: unknown) => ({
      apiVersion: `${GROUP}/${version}`,
      kind: 'Counter',
      metadata: { name: version },
      spec,
    });
    const call = await callWith(
      [numbered],
      reviewOf(`${GROUP}/v3`, [object('v1', { count: 2 }), object('v3', { value: 5 })]),
    );
    expect(steps).toEqual(['v1→hub', 'hub→v3']);
    expect(converted(call)).toEqual([
      { apiVersion: `${GROUP}/v3`, kind: 'Counter', metadata: { name: 'v1' }, spec: { value: 2 } },
      { apiVersion: `${GROUP}/v3`, kind: 'Counter', metadata: { name: 'v3' }, spec: { value: 5 } },
    ]);
  });

  it('every definition at one path, told apart by group and kind', async () => {
    const other: ConversionDefinition<{ spec: { a: number } }> = {
      group: 'other.k.io',
      kind: 'WebApp',
      plural: 'webapps',
      hub: 'v1',
      spokes: {
        v0: {
          toHub: (old: { spec: { b: number } }) => ({ spec: { a: old.spec.b } }),
          fromHub: (current) => ({ spec: { b: current.spec.a } }),
        },
      },
    };
    const handler = [webAppConversion, other];
    const ours = await callWith(handler, reviewOf(`${GROUP}/v1`, [alpha('a', { size: 'medium' })]));
    expect(converted(ours)[0]?.spec).toEqual({ image: 'shop:1', replicas: 3 });
    const theirs = await callWith(
      handler,
      reviewOf('other.k.io/v1', [
        { apiVersion: 'other.k.io/v0', kind: 'WebApp', metadata: { name: 'x' }, spec: { b: 1 } },
      ]),
    );
    expect(converted(theirs)[0]?.spec).toEqual({ a: 1 });
  });
});

describe('conversionHandler restores metadata', () => {
  const meddling: LooseDefinition = {
    group: GROUP,
    kind: 'WebApp',
    plural: 'webapps',
    hub: 'v1',
    spokes: {
      v1alpha1: {
        toHub: (old) => ({
          ...old,
          metadata: {
            name: 'renamed',
            namespace: 'elsewhere',
            uid: 'forged',
            labels: { ...old.metadata.labels, converted: 'yes' },
            annotations: { note: 'kept' },
          },
        }),
        fromHub: (current) => current,
      },
    },
  };

  it('from the object sent, keeping only the labels and annotations a converter set', async () => {
    const sent = alpha(
      'a',
      {},
      {
        labels: { app: 'shop' },
        annotations: { old: 'dropped' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o' }],
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
      },
    );
    const call = await callWith([meddling], reviewOf(`${GROUP}/v1`, [sent]));
    expect(converted(call)[0]?.metadata).toEqual({
      ...sent.metadata,
      labels: { app: 'shop', converted: 'yes' },
      annotations: { note: 'kept' },
    });
  });

  it('keeps the labels and annotations handed to a converter that returns no metadata', async () => {
    const bare: LooseDefinition = {
      ...meddling,
      spokes: {
        v1alpha1: { toHub: (old) => ({ spec: old.spec }) as Loose, fromHub: (current) => current },
      },
    };
    const sent = alpha('a', {}, { labels: { app: 'shop' }, annotations: { a: 'b' } });
    const call = await callWith([bare], reviewOf(`${GROUP}/v1`, [sent]));
    expect(converted(call)[0]?.metadata).toEqual(sent.metadata);
  });

  it('even when a converter changes in place what it was handed, on the way through the hub', async () => {
    const inPlace: LooseDefinition = {
      group: GROUP,
      kind: 'WebApp',
      plural: 'webapps',
      hub: 'v1',
      spokes: {
        v1alpha1: {
          toHub: (old) => {
            firstOwner(old).name = 'stolen';
            old.metadata.name = 'renamed';
            return old;
          },
          fromHub: (current) => current,
        },
        v1beta1: {
          toHub: (old) => old,
          fromHub: (current) => {
            firstOwner(current).uid = 'forged';
            current.metadata.labels = { added: 'by-fromHub' };
            return current;
          },
        },
      },
    };
    const sent = alpha('a', {}, { ownerReferences: [{ name: 'owner', uid: 'o' }] });
    const call = await callWith([inPlace], reviewOf(`${GROUP}/v1beta1`, [sent]));
    expect(converted(call)[0]?.metadata).toEqual({
      ...sent.metadata,
      labels: { added: 'by-fromHub' },
    });
  });
});

describe('conversionHandler fails the review', () => {
  it('for a version without a converter, naming the object and both versions', async () => {
    const unknownFrom = await callWith(
      [webAppConversion],
      reviewOf(`${GROUP}/v1`, [hub('fine'), { ...alpha('old-one'), apiVersion: `${GROUP}/v0` }]),
    );
    expect(unknownFrom.reply.status).toBe(200);
    expect(unknownFrom.review.response?.uid).toBe('uid-1');
    expect(unknownFrom.review.response?.convertedObjects).toEqual([]);
    expect(failure(unknownFrom)).toBe(
      `cannot convert WebApp team-a/old-one from "${GROUP}/v0" to "${GROUP}/v1": version "v0" has no converter (known: v1, v1alpha1)`,
    );
    const unknownTo = await callWith([webAppConversion], reviewOf(`${GROUP}/v9`, [hub('b')]));
    expect(failure(unknownTo)).toContain('version "v9" has no converter');
  });

  it('for an unknown kind or a desired version of another group', async () => {
    const kind = await callWith(
      [webAppConversion],
      reviewOf(`${GROUP}/v1`, [{ ...alpha('g'), kind: 'Gadget' }]),
    );
    expect(failure(kind)).toContain('Gadget team-a/g');
    expect(failure(kind)).toContain('this webhook converts no such kind');
    const group = await callWith([webAppConversion], reviewOf('other.k.io/v1', [alpha('a')]));
    expect(failure(group)).toContain('the versions are of different groups');
    const malformed = await callWith([webAppConversion], reviewOf('a/b/c', [alpha('a')]));
    expect(failure(malformed)).toContain('not a <group>/<version>');
    const notObject = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, [42]));
    expect(failure(notObject)).toBe('an object to convert is not a JSON object');
  });

  it('when a converter throws: its message answered, a RuntimeError logged, no object data quoted', async () => {
    const throwing: LooseDefinition = {
      ...webAppConversion,
      spokes: {
        v1alpha1: {
          toHub: () => {
            throw new Error('size "huge" is unknown');
          },
          fromHub: (current) => current,
        },
      },
    };
    const sent = alpha('a', { size: 'huge', token: 'secret-token-value' });
    const call = await callWith([throwing], reviewOf(`${GROUP}/v1`, [sent]));
    const message = failure(call);
    expect(message).toBe(
      `cannot convert WebApp team-a/a from "${GROUP}/v1alpha1" to "${GROUP}/v1": v1alpha1's toHub threw: size "huge" is unknown`,
    );
    expect(JSON.stringify(call.review)).not.toContain('secret-token-value');
    const [line] = call.logged.filter((logged) => logged.level === 'error');
    expect(line?.message).toBe('conversion failed');
    expect(line?.fields?.['code']).toBe('ERR_RUNTIME_CONVERSION');
    const error = line?.fields?.['error'];
    expect(RuntimeError.isInstance(error)).toBe(true);
    expect((error as RuntimeError).cause).toBeInstanceOf(Error);
    expect(JSON.stringify(call.logged)).not.toContain('secret-token-value');
  });

  it('when a converter returns a promise, no object, or labels the API server would refuse', async () => {
    const returning = (toHub: (old: Loose) => unknown): LooseDefinition => ({
      ...webAppConversion,
      spokes: {
        v1alpha1: { toHub: toHub as (old: Loose) => Loose, fromHub: (current) => current },
      },
    });
    const cases: [(old: Loose) => unknown, string][] = [
      [
        (old) => Promise.resolve(old),
        "v1alpha1's toHub returned a promise (converters are synchronous)",
      ],
      [() => undefined, "v1alpha1's toHub returned no object"],
      [
        (old) => ({ ...old, metadata: 'x' }),
        'the converter returned metadata that is not an object',
      ],
      [
        (old) => ({ ...old, metadata: { labels: { a: 1 } } }),
        'metadata.labels["a"] is not a string',
      ],
      [
        (old) => ({ ...old, metadata: { labels: { 'a b': 'c' } } }),
        'label key "a b" is not a qualified name',
      ],
      [
        (old) => ({ ...old, metadata: { labels: { a: 'x'.repeat(64) } } }),
        'the value of label "a" is not a valid label value',
      ],
      [
        (old) => ({ ...old, metadata: { annotations: { '/x': 'y' } } }),
        'annotation key "/x" is not a qualified name',
      ],
      [
        (old) => ({ ...old, metadata: { annotations: { [STASH]: 'x'.repeat(256 * 1024) } } }),
        `the annotations take ${256 * 1024 + STASH.length} bytes, more than Kubernetes' 262144`,
      ],
      [
        // Counted in UTF-8 bytes, as Go counts: 131,072 characters of two bytes each.
        (old) => ({ ...old, metadata: { annotations: { [STASH]: 'é'.repeat(128 * 1024) } } }),
        `the annotations take ${256 * 1024 + STASH.length} bytes, more than Kubernetes' 262144`,
      ],
      [
        // 40 levels of [next, next]: 2^40 values as JSON, though few objects.
        (old) => {
          let shared: unknown = 'leaf';
          for (let level = 0; level < 40; level += 1) shared = [shared, shared];
          return { ...old, spec: { shared } };
        },
        'holds a cycle or a bigint',
      ],
      [
        (old) => {
          const cycle: Loose = { ...old };
          cycle.spec = { self: cycle };
          return cycle;
        },
        'the converted object nests deeper than 10000 levels, holds a cycle or a bigint',
      ],
      [(old) => ({ ...old, spec: { big: 1n } }), 'holds a cycle or a bigint'],
    ];
    for (const [toHub, expected] of cases) {
      const call = await callWith([returning(toHub)], reviewOf(`${GROUP}/v1`, [alpha('a')]));
      expect(failure(call)).toContain(expected);
    }
  });

  it('when it holds more objects than maxObjects; 1,000 fit the default (100,000)', async () => {
    const many = Array.from({ length: 1_000 }, (_, index) =>
      alpha(`app-${index}`, { size: 'small' }),
    );
    const fits = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, many));
    expect(DEFAULT_MAX_OBJECTS).toBe(100_000);
    expect(converted(fits)).toHaveLength(1_000);
    expect(converted(fits)[999]?.metadata.name).toBe('app-999');
    const over = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, many), {
      maxObjects: 999,
    });
    expect(failure(over)).toBe(
      'the review holds 1000 objects, more than the 999 this webhook converts in one call',
    );
  });

  it('when the call ends while a long review is converted', async () => {
    const many = Array.from({ length: 2_000 }, (_, index) => alpha(`app-${index}`));
    const aborted = new AbortController();
    aborted.abort();
    const call = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, many), {
      signal: aborted.signal,
    });
    expect(failure(call)).toBe('the call ended after 512 of 2000 objects were converted');
  });
});

describe('conversionHandler refuses with HTTP 400 (as controller-runtime does)', () => {
  const cases: [string, string | Uint8Array, string][] = [
    ['a body that is not JSON', '{"apiVersion":', 'the body is not UTF-8 JSON'],
    ['a body that is not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'the body is not UTF-8 JSON'],
    ['a JSON array', '[]', 'the body is not a JSON object'],
    [
      'a v1beta1 review',
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'ConversionReview',
        request: { uid: 'u' },
      }),
      'the body is not an apiextensions.k8s.io/v1 ConversionReview (apiVersion "apiextensions.k8s.io/v1beta1", kind "ConversionReview"; list v1 in the CRD\'s conversionReviewVersions)',
    ],
    [
      'a review without a request',
      '{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}',
      'the review has no request',
    ],
    ['a request without a uid', reviewOf(`${GROUP}/v1`, [], ''), 'the request has no uid'],
  ];
  it.each(cases)('%s', async (_, body, problem) => {
    const call = await callWith([webAppConversion], body);
    expect(call.reply.status).toBe(400);
    expect(call.review.response).toEqual({
      uid: '',
      convertedObjects: [],
      result: { status: 'Failure', message: problem },
    });
    expect(call.logged.map((line) => line.level)).toEqual(['warn']);
  });

  it('echoing the uid when the request had one', async () => {
    const body = JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'uid-7', desiredAPIVersion: `${GROUP}/v1`, objects: { 0: {} } },
    });
    const call = await callWith([webAppConversion], body);
    expect(call.reply.status).toBe(400);
    expect(call.review.response?.uid).toBe('uid-7');
    expect(failure(call)).toBe("the request's objects are not an array");
    const noVersion = await callWith([webAppConversion], body.replace('desiredAPIVersion', 'x'));
    expect(failure(noVersion)).toBe('the request has no desiredAPIVersion');
  });

  it('but takes objects: null as none, as Go decodes it', async () => {
    const body = reviewOf(`${GROUP}/v1`, []).replace('[]', 'null');
    const call = await callWith([webAppConversion], body);
    expect(call.reply.status).toBe(200);
    expect(call.review.response).toEqual({
      uid: 'uid-1',
      convertedObjects: [],
      result: { status: 'Success' },
    });
  });
});

describe('conversionHandler with hostile objects', () => {
  it('fails an object deeper than 10,000 levels by name, without overflowing the stack', async () => {
    const depth = 10_050;
    const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const body = reviewOf(`${GROUP}/v1`, [alpha('deep')]).replace(
      '"image":"shop:1"',
      `"image":"shop:1","deep":${deep}`,
    );
    const call = await callWith([webAppConversion], body);
    expect(failure(call)).toBe(
      `cannot convert WebApp team-a/deep from "${GROUP}/v1alpha1" to "${GROUP}/v1": it nests deeper than 10000 levels`,
    );
    const same = await callWith(
      [webAppConversion],
      body.replace(`${GROUP}/v1"`, `${GROUP}/v1alpha1"`),
    );
    expect(failure(same)).toContain('it nests deeper than 10000 levels');
  });

  it('converts a custom resource 9,990 levels deep (beyond JSON.stringify), and the answer encodes', async () => {
    // 9,987 levels inside spec.deep: with the object, spec and deep, 9,990 levels in all.
    const deep = '{"a":'.repeat(9_987) + '1' + '}'.repeat(9_987);
    const body = reviewOf(`${GROUP}/v1alpha1`, [hub('deep')]).replace(
      '"image":"shop:1"',
      `"image":"shop:1","deep":${deep}`,
    );
    const call = await callWith([passThrough], body);
    expect(call.review.response?.result.status).toBe('Success');
    expect(stringifyJson(converted(call)[0]?.spec.deep as JsonValue)).toBe(deep);
  });

  it('keeps __proto__ and constructor keys as data, polluting no prototype', async () => {
    const body = reviewOf(`${GROUP}/v1`, [alpha('p')])
      .replace(
        '"image":"shop:1"',
        '"image":"shop:1","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}',
      )
      .replace('"name":"p"', '"name":"p","labels":{"__proto__":"x"},"__proto__":{"polluted":true}');
    const call = await callWith([passThrough], body);
    expect(call.review.response?.result.status).toBe('Success');
    // The objects as answered, before the server encodes them.
    const object = (call.reply.body as ConversionReview).response?.convertedObjects[0] as Converted;
    expect(Object.hasOwn(object.spec, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(object.spec)).toBe(Object.prototype);
    expect(object.spec['__proto__']).toEqual({ polluted: true });
    expect(Object.hasOwn(object.spec, 'constructor')).toBe(true);
    expect(Object.hasOwn(object.metadata, '__proto__')).toBe(true);
    expect(Object.hasOwn(object.metadata.labels ?? {}, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(call.reply.body)).toContain('"__proto__":{"polluted":true}');
  });

  it('shows cut names and quoted versions in messages, however long the sender made them', async () => {
    const long = 'n'.repeat(10_000);
    const object = { ...alpha(long), apiVersion: `${GROUP}/${'v'.repeat(10_000)}` };
    const call = await callWith([webAppConversion], reviewOf(`${GROUP}/v1`, [object]));
    expect(failure(call).length).toBeLessThan(700);
  });
});

describe('conversionHandler refuses at construction', () => {
  it('a group and kind defined twice', () => {
    expect(() => conversionHandler([webAppConversion, { ...webAppConversion, hub: 'v2' }])).toThrow(
      expect.objectContaining({
        code: 'ERR_RUNTIME_CONFIGURATION',
        message:
          'conversion for WebApp.demo.k.io is defined twice: one definition per group and kind',
      }),
    );
  });

  it('a version that is both hub and spoke, and malformed definitions or options', () => {
    const converter = { toHub: (old: unknown) => old, fromHub: (current: unknown) => current };
    expect(() => conversionHandler([{ ...webAppConversion, spokes: { v1: converter } }])).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_CONFIGURATION' }),
    );
    expect(() => conversionHandler([{ ...webAppConversion, hub: '' }])).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }),
    );
    expect(() =>
      conversionHandler([
        { ...webAppConversion, spokes: { v1alpha1: { toHub: converter.toHub } as never } },
      ]),
    ).toThrow(expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }));
    expect(() => conversionHandler([webAppConversion], { maxObjects: 0 })).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }),
    );
    expect(() => conversionHandler([webAppConversion], { maxDepth: 1.5 })).toThrow(
      expect.objectContaining({ code: 'ERR_RUNTIME_INVALID_ARGUMENT' }),
    );
  });

  it('nothing for a handler without definitions: every object fails as of an unknown kind', async () => {
    const call = await callWith([], reviewOf(`${GROUP}/v1`, [alpha('a')]));
    expect(failure(call)).toContain('this webhook converts no such kind');
  });
});
