import { describe, expect, it } from 'vitest';
import { RequestBuildError } from '../errors.js';
import { formatGoDuration } from './go-duration.js';
import { RequestBuilder, type RequestDefaults } from './request-builder.js';
import type { HttpMethod } from './rest-request.js';
import { withParams } from './rest-request.js';

const core: RequestDefaults = { basePath: '', groupVersion: 'v1' };

function builder(method: HttpMethod = 'GET', defaults: RequestDefaults = core): RequestBuilder {
  return new RequestBuilder(method, defaults);
}

function buildError(request: RequestBuilder): string {
  try {
    request.build();
  } catch (error) {
    expect(RequestBuildError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected build() to throw');
}

describe('RequestBuilder paths', () => {
  it('puts the core group under /api and other groups under /apis', () => {
    expect(builder().namespace('ns').resource('pods').name('p').url()).toBe(
      '/api/v1/namespaces/ns/pods/p',
    );
    expect(builder().groupVersion('apps/v1').namespace('ns').resource('deployments').url()).toBe(
      '/apis/apps/v1/namespaces/ns/deployments',
    );
    expect(builder('GET', { basePath: '', groupVersion: 'batch/v1' }).resource('jobs').url()).toBe(
      '/apis/batch/v1/jobs',
    );
  });

  it('orders namespace, resource, name and subresource whatever the call order (F13)', () => {
    const defaults = { basePath: '/test', groupVersion: 'v1' };
    expect(builder('GET', defaults).name('bar').resource('baz').namespace('foo').url()).toBe(
      '/test/api/v1/namespaces/foo/baz/bar',
    );
    expect(
      builder('GET', defaults)
        .subresource('a', 'b')
        .name('bar')
        .resource('baz')
        .namespace('foo')
        .url(),
    ).toBe('/test/api/v1/namespaces/foo/baz/bar/a/b');
  });

  it('lowercases the resource and leaves out an empty namespace (all namespaces, H2)', () => {
    expect(
      builder().namespace('').resource('Pods').params({ labelSelector: 'app=x', limit: 500 }).url(),
    ).toBe('/api/v1/pods?labelSelector=app%3Dx&limit=500');
  });

  it('escapes segments as Go url.URL does', () => {
    expect(builder().resource('configmaps').name('a b?c#d:e@f+g$h').url()).toBe(
      '/api/v1/configmaps/a%20b%3Fc%23d:e@f+g$h',
    );
    expect(builder().resource('configmaps').name("it's(*)!").url()).toBe(
      '/api/v1/configmaps/it%27s%28%2A%29%21',
    );
    expect(builder().resource('configmaps').name('ünï').url()).toBe(
      '/api/v1/configmaps/%C3%BCn%C3%AF',
    );
  });

  it('keeps the server base path and lets absPath replace the api prefix', () => {
    const defaults = { basePath: '/k8s/clusters/c-1', groupVersion: 'v1' };
    expect(builder('GET', defaults).absPath('/version').url()).toBe('/k8s/clusters/c-1/version');
    expect(builder('GET', defaults).absPath('/apis', 'apps').url()).toBe(
      '/k8s/clusters/c-1/apis/apps',
    );
    expect(builder().absPath('/api/').url()).toBe('/api/');
  });
});

describe('RequestBuilder mistakes (reported by build and execute, not mid-chain)', () => {
  it('rejects invalid segments with client-go messages (F14)', () => {
    expect(buildError(builder().namespace('test/segment'))).toBe(
      `invalid namespace "test/segment": [may not contain '/']`,
    );
    expect(buildError(builder().name('..'))).toBe(`invalid resource name "..": [may not be '..']`);
    expect(buildError(builder().name('.'))).toBe(`invalid resource name ".": [may not be '.']`);
    expect(buildError(builder().resource('test%2bsegment'))).toBe(
      `invalid resource "test%2bsegment": [may not contain '%']`,
    );
    expect(buildError(builder().resource('a/%b'))).toBe(
      `invalid resource "a/%b": [may not contain '/' may not contain '%']`,
    );
    expect(buildError(builder().subresource('status', '..'))).toBe(
      `invalid subresource "..": [may not be '..']`,
    );
  });

  it('rejects a value set twice and an empty name', () => {
    expect(buildError(builder().name('bar').name('baz'))).toBe(
      'resource name already set to "bar", cannot change to "baz"',
    );
    expect(buildError(builder().namespace('a').namespace('b'))).toBe(
      'namespace already set to "a", cannot change to "b"',
    );
    expect(buildError(builder().resource('pods').resource('nodes'))).toBe(
      'resource already set to "pods", cannot change to "nodes"',
    );
    expect(buildError(builder().subresource('status').subresource('scale'))).toBe(
      'subresource already set to "status", cannot change to "scale"',
    );
    expect(buildError(builder().name(''))).toBe('resource name may not be empty');
    expect(buildError(builder().groupVersion('a/b/c'))).toBe('invalid group version "a/b/c"');
  });

  it('keeps the first mistake', () => {
    expect(buildError(builder().name('').namespace('a/b').name('x').name('y'))).toBe(
      'resource name may not be empty',
    );
  });

  it('refuses an explicitly empty namespace for create and for a named get/put/delete', () => {
    expect(buildError(builder('POST').namespace('').resource('pods'))).toBe(
      'an empty namespace may not be set during creation',
    );
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      expect(buildError(builder(method).namespace('').resource('pods').name('p'))).toBe(
        'an empty namespace may not be set when a resource name is provided',
      );
    }
    expect(builder('GET').namespace('').resource('pods').url()).toBe('/api/v1/pods');
  });

  it('needs a patch type for PATCH', () => {
    expect(buildError(builder('PATCH').resource('pods').name('p').body({}))).toBe(
      'a patch request needs a patch type: json, merge, strategic-merge or apply',
    );
  });

  it('needs a field manager for server-side apply', () => {
    const apply = new RequestBuilder('PATCH', core, undefined, 'apply').resource('pods').name('p');
    expect(buildError(apply.body({}))).toBe(
      'server-side apply needs a field manager (fieldManager)',
    );
  });

  it('rejects bodies it cannot encode', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(buildError(builder('POST').body(cyclic))).toMatch(/^body cannot be encoded as json/);
    expect(buildError(builder('POST').body(42))).toBe('unknown type used for body: number');
  });

  it('throws the mistake from execute, not from the chain', async () => {
    const chained = new RequestBuilder('GET', core, {
      execute: () => Promise.reject(new Error('must not run')),
    } as never).name('');
    await expect(chained.execute()).rejects.toThrow('resource name may not be empty');
  });
});

describe('RequestBuilder query', () => {
  it('repeats keys, sorts them and form-encodes values', () => {
    const url = builder()
      .resource('pods')
      .param('z', 'last')
      .param('labelSelector', 'a in (x, y)')
      .param('dryRun', 'All')
      .param('z', 'again')
      .url();
    expect(url).toBe('/api/v1/pods?dryRun=All&labelSelector=a+in+%28x%2C+y%29&z=last&z=again');
  });

  it('encodes option objects, skipping undefined', () => {
    expect(
      builder()
        .resource('pods')
        .params({ watch: true, limit: 5, dryRun: ['All'], fieldSelector: undefined })
        .url(),
    ).toBe('/api/v1/pods?dryRun=All&limit=5&watch=true');
  });

  it('sends the timeout as a Go duration, replacing a timeout param', () => {
    expect(builder().resource('pods').param('timeout', '1s').timeout(90_000).url()).toBe(
      '/api/v1/pods?timeout=1m30s',
    );
    const configured = builder('GET', { ...core, timeoutMs: 30_000 }).resource('pods');
    expect(configured.url()).toBe('/api/v1/pods?timeout=30s');
    expect(configured.build().timeoutMs).toBeUndefined();
  });

  it('withParams replaces keys and keeps the query sorted', () => {
    const request = builder().resource('pods').params({ limit: 5, labelSelector: 'a=b' }).build();
    expect(withParams(request, { limit: '500', continue: 'tok en' }).query).toBe(
      '?continue=tok+en&labelSelector=a%3Db&limit=500',
    );
    expect(withParams(request, { limit: undefined, labelSelector: undefined }).query).toBe('');
  });
});

describe('RequestBuilder bodies and content types', () => {
  it('encodes objects as JSON with application/json for create and update', () => {
    const request = builder('POST').namespace('ns').resource('configmaps').body({ a: 1 }).build();
    expect(request.body).toBe('{"a":1}');
    expect(request.headers).toEqual({
      accept: 'application/json, */*',
      'content-type': 'application/json',
    });
    expect(builder('GET').build().headers).toEqual({ accept: 'application/json, */*' });
  });

  it('chooses the patch content type from the patch type', () => {
    const expected = {
      json: 'application/json-patch+json',
      merge: 'application/merge-patch+json',
      'strategic-merge': 'application/strategic-merge-patch+json',
      apply: 'application/apply-patch+yaml',
    } as const;
    for (const [type, contentType] of Object.entries(expected)) {
      const request = new RequestBuilder('PATCH', core, undefined, type as keyof typeof expected)
        .resource('pods')
        .name('p')
        .param('fieldManager', 'tests')
        .body(type === 'json' ? [{ op: 'add', path: '/x', value: 1 }] : { x: 1 })
        .build();
      expect(request.headers['content-type']).toBe(contentType);
    }
  });

  it('sends text and bytes as they are', () => {
    const bytes = new Uint8Array([123, 125]);
    expect(builder('POST').body(bytes).build().body).toBe(bytes);
    expect(builder('POST').body('{}').build().body).toBe('{}');
  });

  it('records resource, group and name for error messages', () => {
    const request = builder().groupVersion('apps/v1').resource('deployments').name('d').build();
    expect([request.group, request.resource, request.name]).toEqual(['apps', 'deployments', 'd']);
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [1, '1ms'],
    [500, '500ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [1050, '1.05s'],
    [30_000, '30s'],
    [90_000, '1m30s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [3_723_400, '1h2m3.4s'],
    [-2000, '-2s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
