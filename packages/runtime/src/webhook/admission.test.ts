import { Buffer } from 'node:buffer';
import type { GroupVersionKind, GroupVersionResource } from '@k/clientset';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it, vi } from 'vitest';
import { AdmissionDenied } from '../errors.js';
import type { Logger } from '../logger.js';
import {
  admissionOperations,
  mutatingHandler,
  validatingHandler,
  type AdmissionContext,
  type ValidatingHandlers,
} from './admission.js';
import type {
  AdmissionRequest,
  AdmissionReview,
  AdmissionStatus,
  AdmissionStatusCause,
} from './admission-review.js';
import { stringifyJson, type JsonValue } from './json-patch.js';
import type { WebhookCall, WebhookHandler } from './webhook-handler.js';

interface WebApp {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: { host?: string; replicas?: number; deep?: unknown };
}

function webApp(spec: WebApp['spec'] = { host: 'web.example' }): WebApp {
  return {
    apiVersion: 'demo.k.io/v1',
    kind: 'WebApp',
    metadata: { name: 'web', namespace: 'team-a' },
    spec,
  };
}

interface LogLine {
  level: keyof Logger;
  message: string;
  fields: Record<string, unknown> | undefined;
}

function recordingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: keyof Logger) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** request is an AdmissionRequest as kube-apiserver sends it, for `operation`. */
function request(
  operation: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    uid: '7d4c5b0e-1f2a-4b3c-9d8e-000000000001',
    kind: { group: 'demo.k.io', version: 'v1', kind: 'WebApp' },
    resource: { group: 'demo.k.io', version: 'v1', resource: 'webapps' },
    requestKind: { group: 'demo.k.io', version: 'v1', kind: 'WebApp' },
    requestResource: { group: 'demo.k.io', version: 'v1', resource: 'webapps' },
    name: 'web',
    namespace: 'team-a',
    operation,
    userInfo: {
      username: 'alice',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { team: ['a'] },
    },
    object: operation === 'DELETE' ? null : webApp(),
    oldObject:
      operation === 'UPDATE' || operation === 'DELETE' ? webApp({ host: 'old.example' }) : null,
    dryRun: false,
    options: {
      apiVersion: 'meta.k8s.io/v1',
      kind: `${operation[0]}${operation.slice(1).toLowerCase()}Options`,
    },
    ...overrides,
  };
}

function reviewOf(body: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: body };
}

function callWith(
  body: string | Uint8Array | Record<string, unknown>,
  options: { contentType?: string | undefined; logger?: Logger; signal?: AbortSignal } = {},
): WebhookCall {
  let text = typeof body === 'string' ? body : '';
  if (typeof body === 'object' && !(body instanceof Uint8Array)) {
    try {
      text = JSON.stringify(body);
    } catch {
      // Deeper than JSON.stringify goes (and without undefined values, which it would drop).
      text = stringifyJson(body as JsonValue);
    }
  }
  const bytes = body instanceof Uint8Array ? body : new TextEncoder().encode(text);
  return {
    body: bytes,
    contentType: 'contentType' in options ? options.contentType : 'application/json',
    signal: options.signal ?? new AbortController().signal,
    logger: options.logger ?? recordingLogger(),
  };
}

/** answer calls `handler` and returns the AdmissionReview it answered, checking the envelope. */
async function answer(
  handler: WebhookHandler,
  call: WebhookCall,
): Promise<NonNullable<AdmissionReview['response']>> {
  const reply = await handler(call);
  expect(reply.status).toBe(200);
  const review = reply.body as AdmissionReview;
  expect(review.apiVersion).toBe('admission.k8s.io/v1');
  expect(review.kind).toBe('AdmissionReview');
  expect(review.request).toBeUndefined();
  // What the server writes must survive JSON as it is.
  expect(JSON.parse(JSON.stringify(review))).toEqual(review);
  return review.response as NonNullable<AdmissionReview['response']>;
}

function patchOf(response: { patch?: string | undefined }): unknown {
  return JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8'));
}

const UID = '7d4c5b0e-1f2a-4b3c-9d8e-000000000001';

describe('validatingHandler', () => {
  it('allows a request its handler returns from, echoing the uid', async () => {
    const create = vi.fn();
    const response = await answer(
      validatingHandler<WebApp>({ create }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(response).toEqual({ uid: UID, allowed: true });
    expect(create).toHaveBeenCalledOnce();
    expect(create.mock.calls[0]?.[0]).toEqual(webApp());
  });

  it('hands the handler the request, user info, dry run, the call signal and logger', async () => {
    let seen: AdmissionContext<WebApp> | undefined;
    const logger = recordingLogger();
    const signal = new AbortController().signal;
    await answer(
      validatingHandler<WebApp>({
        create: (_object, context) => {
          seen = context;
        },
      }),
      callWith(reviewOf(request('CREATE', { dryRun: true })), { logger, signal }),
    );
    expect(seen?.dryRun).toBe(true);
    expect(seen?.user).toEqual({
      username: 'alice',
      uid: 'u-1',
      groups: ['devs', 'system:authenticated'],
      extra: { team: ['a'] },
    });
    expect(seen?.signal).toBe(signal);
    expect(seen?.logger).toBe(logger);
    expect(seen?.request.uid).toBe(UID);
    expect(seen?.request.requestResource).toEqual({
      group: 'demo.k.io',
      version: 'v1',
      resource: 'webapps',
    });
    expect(seen?.request.options).toEqual({ apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' });

    let dryRun: boolean | undefined;
    let user: unknown;
    const withoutFlags = request('CREATE');
    delete withoutFlags['dryRun'];
    delete withoutFlags['userInfo'];
    await answer(
      validatingHandler<WebApp>({
        create: (_object, context) => {
          dryRun = context.dryRun;
          user = context.user;
        },
      }),
      callWith(reviewOf(withoutFlags)),
    );
    expect(dryRun).toBe(false);
    expect(user).toEqual({});
  });

  it('gives update the new and old objects and delete the object being deleted (oldObject)', async () => {
    const handlers = {
      create: vi.fn(),
      update: vi.fn(),
      delete: vi.fn(),
    } satisfies ValidatingHandlers<WebApp>;
    const handler = validatingHandler<WebApp>(handlers);
    await answer(handler, callWith(reviewOf(request('UPDATE'))));
    expect(handlers.update.mock.calls[0]?.slice(0, 2)).toEqual([
      webApp(),
      webApp({ host: 'old.example' }),
    ]);
    await answer(handler, callWith(reviewOf(request('DELETE'))));
    expect(handlers.delete.mock.calls[0]?.[0]).toEqual(webApp({ host: 'old.example' }));
    expect(handlers.create).not.toHaveBeenCalled();
  });

  it('allows an operation without a handler, and CONNECT, without calling anything', async () => {
    const create = vi.fn();
    const handler = validatingHandler<WebApp>({ create });
    for (const operation of ['UPDATE', 'DELETE', 'CONNECT']) {
      expect(await answer(handler, callWith(reviewOf(request(operation))))).toEqual({
        uid: UID,
        allowed: true,
      });
    }
    expect(create).not.toHaveBeenCalled();
  });

  it('answers AdmissionDenied with its code, reason, message and field causes', async () => {
    const handler = validatingHandler<WebApp>({
      create: () => {
        throw new AdmissionDenied('spec.host is taken', {
          causes: [
            { field: 'spec.host', message: 'web.example is used by team-b/web' },
            { field: 'spec.replicas', message: 'required', reason: 'FieldValueRequired' },
          ],
        });
      },
      update: () => {
        throw new AdmissionDenied('frozen');
      },
      delete: () => {
        throw new AdmissionDenied('locked', { code: 409, reason: 'Conflict' });
      },
    });
    expect(await answer(handler, callWith(reviewOf(request('CREATE'))))).toEqual({
      uid: UID,
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'spec.host is taken',
        details: {
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'web.example is used by team-b/web',
              field: 'spec.host',
            },
            { reason: 'FieldValueRequired', message: 'required', field: 'spec.replicas' },
          ],
        },
      },
    });
    expect(await answer(handler, callWith(reviewOf(request('UPDATE'))))).toEqual({
      uid: UID,
      allowed: false,
      status: { status: 'Failure', code: 403, reason: 'Forbidden', message: 'frozen' },
    });
    expect((await answer(handler, callWith(reviewOf(request('DELETE'))))).status).toEqual({
      status: 'Failure',
      code: 409,
      reason: 'Conflict',
      message: 'locked',
    });
  });

  it('answers any other error with 500 and its message, and logs it with the request (never the object)', async () => {
    const logger = recordingLogger();
    const handler = validatingHandler<WebApp>({
      create: async () => {
        await Promise.resolve();
        throw new Error('lookup failed');
      },
      update: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a careless handler does
        throw 'plain text';
      },
    });
    expect(await answer(handler, callWith(reviewOf(request('CREATE')), { logger }))).toEqual({
      uid: UID,
      allowed: false,
      status: { status: 'Failure', code: 500, reason: 'InternalError', message: 'lookup failed' },
    });
    const line = logger.lines.find((each) => each.level === 'error');
    expect(line?.message).toBe('admission handler failed');
    expect(line?.fields).toMatchObject({
      uid: UID,
      operation: 'CREATE',
      resource: 'demo.k.io/v1/webapps',
      namespace: 'team-a',
      name: 'web',
      user: 'alice',
    });
    expect((line?.fields?.['error'] as Error).message).toBe('lookup failed');
    expect(JSON.stringify(line?.fields)).not.toContain('web.example');
    expect((await answer(handler, callWith(reviewOf(request('UPDATE'))))).status?.message).toBe(
      'plain text',
    );
  });

  it('refuses with 400 a request without the object its handler takes', async () => {
    const handler = validatingHandler<WebApp>({
      create: vi.fn(),
      update: vi.fn(),
      delete: vi.fn(),
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ['CREATE', { object: null }, 'the CREATE request has no object'],
      ['UPDATE', { oldObject: null }, 'the UPDATE request has no oldObject'],
      ['DELETE', { oldObject: undefined }, 'the DELETE request has no oldObject'],
    ];
    for (const [operation, overrides, message] of cases) {
      expect(await answer(handler, callWith(reviewOf(request(operation, overrides))))).toEqual({
        uid: UID,
        allowed: false,
        status: { status: 'Failure', code: 400, reason: 'BadRequest', message },
      });
    }
  });
});

describe('warnings', () => {
  it('are answered with an allowed request and with a denied one', async () => {
    const handler = validatingHandler<WebApp>({
      create: (_object, context) => {
        context.warn('spec.host will change to HTTPS only');
      },
      update: (_object, _old, context) => {
        context.warn('first');
        throw new AdmissionDenied('no');
      },
    });
    expect((await answer(handler, callWith(reviewOf(request('CREATE'))))).warnings).toEqual([
      'spec.host will change to HTTPS only',
    ]);
    const denied = await answer(handler, callWith(reviewOf(request('UPDATE'))));
    expect(denied.allowed).toBe(false);
    expect(denied.warnings).toEqual(['first']);
    expect(
      await answer(
        validatingHandler<WebApp>({ create: () => {} }),
        callWith(reviewOf(request('CREATE'))),
      ),
    ).not.toHaveProperty('warnings');
  });

  it('are kept as the API server shows them: no control characters, no repeats, cut at 256 and 4,096 code points', async () => {
    const emoji = '😀'; // one code point, two UTF-16 units
    const handler = validatingHandler<WebApp>({
      create: (_object, context) => {
        context.warn('line one\nline two\u0007');
        context.warn('line one\nline two\u0007');
        context.warn('');
        context.warn('   ');
        context.warn(emoji.repeat(300));
        context.warn('lone \uD800 surrogate');
        for (let index = 0; index < 100; index++) context.warn(`${index}`.padEnd(200, '.'));
      },
    });
    const warnings = (await answer(handler, callWith(reviewOf(request('CREATE'))))).warnings ?? [];
    expect(warnings[0]).toBe('line one line two ');
    expect(warnings[1]).toBe(emoji.repeat(256));
    expect(warnings[2]).toBe('lone \uFFFD surrogate');
    const codePoints = warnings.reduce((total, warning) => total + Array.from(warning).length, 0);
    expect(codePoints).toBeLessThanOrEqual(4096);
    // 18 + 256 + 16 code points leave room for 19 of the 200-character warnings, in order.
    expect(warnings.slice(3)).toEqual(
      Array.from({ length: 19 }, (_, index) => `${index}`.padEnd(200, '.')),
    );
  });
});

describe('bad requests', () => {
  const allowAll = validatingHandler<WebApp>({ create: vi.fn() });
  const badRequest = (uid: string, message: string): unknown => ({
    uid,
    allowed: false,
    status: { status: 'Failure', code: 400, reason: 'BadRequest', message },
  });

  it('answer a v1 AdmissionReview refusing with 400, echoing the uid when one could be read', async () => {
    const cases: [WebhookCall, string, string][] = [
      [callWith(new Uint8Array()), '', 'the request body is empty'],
      [
        callWith(reviewOf(request('CREATE')), { contentType: 'text/plain' }),
        '',
        'content type "text/plain" is not application/json',
      ],
      [
        callWith(reviewOf(request('CREATE')), { contentType: undefined }),
        '',
        'content type "" is not application/json',
      ],
      [
        callWith('{"request":{"uid":"x", "object":{"data":{"password":"hunter2"'),
        '',
        'the request body is not valid JSON',
      ],
      [callWith('[1,2]'), '', 'the request body is not an AdmissionReview'],
      [callWith('null'), '', 'the request body is not an AdmissionReview'],
      [
        callWith({ ...reviewOf(request('CREATE')), apiVersion: 'admission.k8s.io/v1beta1' }),
        UID,
        'expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "admission.k8s.io/v1beta1" kind "AdmissionReview"',
      ],
      [
        callWith({ apiVersion: 'v1', kind: 'Pod', metadata: {} }),
        '',
        'expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "v1" kind "Pod"',
      ],
      [
        callWith({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
        '',
        'the AdmissionReview has no request',
      ],
      [
        callWith(reviewOf(request('CREATE', { uid: undefined }))),
        '',
        'the AdmissionReview request has no uid',
      ],
      [
        callWith(reviewOf(request('CREATE', { uid: 42 }))),
        '',
        'the AdmissionReview request has no uid',
      ],
      [callWith(reviewOf(request('PATCH'))), UID, 'unknown operation "PATCH"'],
      [
        callWith(reviewOf(request('CREATE', { object: 'text' }))),
        UID,
        "the AdmissionReview request's object is not an object",
      ],
      [
        callWith(reviewOf(request('CREATE', { userInfo: ['alice'] }))),
        UID,
        "the AdmissionReview request's userInfo is not an object",
      ],
      [
        callWith(reviewOf(request('CREATE', { dryRun: 'yes' }))),
        UID,
        "the AdmissionReview request's dryRun is not a boolean",
      ],
    ];
    for (const [call, uid, message] of cases) {
      expect(await answer(allowAll, call), message).toEqual(badRequest(uid, message));
    }
  });

  it('quote no more than a short piece of what the sender wrote, and log the refusal', async () => {
    const logger = recordingLogger();
    const response = await answer(
      allowAll,
      callWith(reviewOf(request('x'.repeat(100_000))), { logger }),
    );
    expect(response.status?.message.length).toBeLessThan(100);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: { uid: UID, reason: response.status?.message },
      }),
    ]);
  });

  it('accept application/json with parameters and a byte order mark', async () => {
    const body = new TextEncoder().encode(`\uFEFF${JSON.stringify(reviewOf(request('CREATE')))}`);
    expect(
      await answer(allowAll, callWith(body, { contentType: 'Application/JSON; charset=utf-8' })),
    ).toEqual({
      uid: UID,
      allowed: true,
    });
  });
});

describe('mutatingHandler', () => {
  /** applied is the request's object with the response's patch applied by an independent RFC 6902 applier. */
  function applied(object: unknown, response: { patch?: string | undefined }): unknown {
    return jsonPatch.applyPatch(
      structuredClone(object),
      patchOf(response) as jsonPatch.Operation[],
      true,
      false,
    ).newDocument;
  }

  it('answers the JSON Patch from the object sent to the object as the handler changed it', async () => {
    const handler = mutatingHandler<WebApp>({
      mutate: (object) => {
        object.spec.replicas ??= 1;
        object.metadata.labels = { 'app.kubernetes.io/name': object.metadata.name };
        delete object.spec.host;
      },
    });
    const response = await answer(handler, callWith(reviewOf(request('CREATE'))));
    expect(response).toMatchObject({ uid: UID, allowed: true, patchType: 'JSONPatch' });
    expect(patchOf(response)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { 'app.kubernetes.io/name': 'web' } },
      { op: 'remove', path: '/spec/host' },
      { op: 'add', path: '/spec/replicas', value: 1 },
    ]);
    expect(applied(webApp(), response)).toEqual({
      ...webApp({ replicas: 1 }),
      metadata: { name: 'web', namespace: 'team-a', labels: { 'app.kubernetes.io/name': 'web' } },
    });
  });

  it('takes a returned object as the result, and answers no patch when nothing changed', async () => {
    const replaced = await answer(
      mutatingHandler<WebApp>({
        mutate: (object) => ({ ...object, spec: { ...object.spec, replicas: 3 } }),
      }),
      callWith(reviewOf(request('UPDATE'))),
    );
    expect(patchOf(replaced)).toEqual([{ op: 'add', path: '/spec/replicas', value: 3 }]);
    const unchanged = await answer(
      mutatingHandler<WebApp>({
        mutate: (object) => {
          object.spec.host = 'web.example';
        },
      }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(unchanged).toEqual({ uid: UID, allowed: true });
  });

  it("hands the handler its own copy: the request's object in the context is that copy", async () => {
    let seen: { object: WebApp; context: AdmissionContext<WebApp> } | undefined;
    const response = await answer(
      mutatingHandler<WebApp>({
        mutate: (object, context) => {
          seen = { object, context };
          (context.request.object as WebApp).spec.replicas = 2;
          expect(context.request.oldObject).toEqual(webApp({ host: 'old.example' }));
        },
      }),
      callWith(reviewOf(request('UPDATE', { dryRun: true }))),
    );
    expect(seen?.context.request.object).toBe(seen?.object);
    expect(seen?.context.dryRun).toBe(true);
    expect(patchOf(response)).toEqual([{ op: 'add', path: '/spec/replicas', value: 2 }]);
  });

  it('allows DELETE and CONNECT without calling mutate', async () => {
    const mutate = vi.fn();
    for (const operation of ['DELETE', 'CONNECT']) {
      expect(
        await answer(mutatingHandler<WebApp>({ mutate }), callWith(reviewOf(request(operation)))),
      ).toEqual({
        uid: UID,
        allowed: true,
      });
    }
    expect(mutate).not.toHaveBeenCalled();
  });

  it('refuses as a validating handler does when mutate throws, or returns what is not JSON', async () => {
    const denied = await answer(
      mutatingHandler<WebApp>({
        mutate: (_object, context) => {
          context.warn('checked');
          throw new AdmissionDenied('no replicas left');
        },
      }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(denied).toEqual({
      uid: UID,
      allowed: false,
      status: { status: 'Failure', code: 403, reason: 'Forbidden', message: 'no replicas left' },
      warnings: ['checked'],
    });
    const circular = await answer(
      mutatingHandler<WebApp>({
        mutate: (object) => {
          object.spec.deep = { back: object };
        },
      }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(circular.status).toEqual({
      status: 'Failure',
      code: 500,
      reason: 'InternalError',
      message: 'the value is circular, at "/spec/deep/back"',
    });
    const wrong = await answer(
      mutatingHandler<WebApp>({ mutate: () => 'replaced' as unknown as WebApp }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(wrong.status?.message).toBe('mutate returned string, not the object or nothing');
    expect(() => mutatingHandler<WebApp>({} as never)).toThrow(TypeError);
  });

  it('mutates an object 10,000 levels deep', async () => {
    const depth = 10_000;
    let deep: JsonValue = { leaf: 1 };
    for (let level = 0; level < depth; level++) deep = { a: deep };
    const handler = mutatingHandler<WebApp>({
      mutate: (object) => {
        let at = object.spec.deep as { a?: unknown; leaf?: number };
        while (at.a !== undefined) at = at.a as typeof at;
        at.leaf = 2;
      },
    });
    const response = await answer(
      handler,
      callWith(reviewOf(request('CREATE', { object: webApp({ deep }) }))),
    );
    expect(patchOf(response)).toEqual([
      { op: 'replace', path: `/spec/deep${'/a'.repeat(depth)}/leaf`, value: 2 },
    ]);
    // A validating handler gets the deep object as sent.
    const create = vi.fn();
    await answer(
      validatingHandler<WebApp>({ create }),
      callWith(reviewOf(request('CREATE', { object: webApp({ deep }) }))),
    );
    expect(create).toHaveBeenCalledOnce();
  });
});

describe('hostile keys', () => {
  const hostile = `{"apiVersion":"demo.k.io/v1","kind":"WebApp","metadata":{"name":"web"},"spec":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}`;
  const body = (object: string): string =>
    JSON.stringify(reviewOf(request('CREATE', { object: '@' }))).replace('"@"', object);

  it('reach a validating handler as data, and no prototype', async () => {
    let spec: Record<string, unknown> | undefined;
    await answer(
      validatingHandler<WebApp>({
        create: (object) => {
          spec = object.spec;
        },
      }),
      callWith(body(hostile)),
    );
    expect(Object.hasOwn(spec ?? {}, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(spec)).toBe(Object.prototype);
    expect(spec?.['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('stay data in the mutating copy and in the patch', async () => {
    let copied: Record<string, unknown> | undefined;
    const response = await answer(
      mutatingHandler<WebApp>({
        mutate: (object) => {
          copied = object.spec;
          delete copied['__proto__'];
          copied['constructor'] = 'plain';
        },
      }),
      callWith(body(hostile)),
    );
    expect(patchOf(response)).toEqual([
      { op: 'remove', path: '/spec/__proto__' },
      { op: 'replace', path: '/spec/constructor', value: 'plain' },
    ]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const added = await answer(
      mutatingHandler<WebApp>({
        mutate: (object) =>
          JSON.parse(
            JSON.stringify(object).replace('"spec":{', '"spec":{"__proto__":1,'),
          ) as WebApp,
      }),
      callWith(reviewOf(request('CREATE'))),
    );
    expect(patchOf(added)).toEqual([{ op: 'add', path: '/spec/__proto__', value: 1 }]);
  });
});

describe('admissionOperations', () => {
  it('lists the operations a handler set covers', () => {
    expect(admissionOperations<WebApp>({ create: () => {}, delete: () => {} })).toEqual([
      'CREATE',
      'DELETE',
    ]);
    expect(admissionOperations<WebApp>({ update: () => {} })).toEqual(['UPDATE']);
    expect(admissionOperations<WebApp>({})).toEqual([]);
    expect(admissionOperations<WebApp>({ mutate: () => {} })).toEqual(['CREATE', 'UPDATE']);
  });
});

describe('wire types', () => {
  it('name the parts of a review as Kubernetes does', () => {
    const kind: GroupVersionKind = { group: 'demo.k.io', version: 'v1', kind: 'WebApp' };
    const resource: GroupVersionResource = {
      group: 'demo.k.io',
      version: 'v1',
      resource: 'webapps',
    };
    const cause: AdmissionStatusCause = {
      reason: 'FieldValueInvalid',
      message: 'bad',
      field: 'spec.host',
    };
    const status: AdmissionStatus = {
      status: 'Failure',
      code: 422,
      message: 'bad',
      details: { causes: [cause] },
    };
    const typed: AdmissionRequest<WebApp> = {
      uid: UID,
      kind,
      resource,
      operation: 'CREATE',
      userInfo: {},
      object: webApp(),
    };
    expect(request('CREATE')).toMatchObject({ kind, resource, uid: typed.uid });
    expect(status.details?.causes).toHaveLength(1);
  });
});
