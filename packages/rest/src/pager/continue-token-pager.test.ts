import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { RequestBuilder } from '../request/request-builder.js';
import type { ListObject } from '../response/list-object.js';
import type { RestRequest } from '../request/rest-request.js';
import { ContinueTokenPager } from './continue-token-pager.js';

const base = new RequestBuilder('GET', { basePath: '', groupVersion: 'v1' })
  .resource('configmaps')
  .param('resourceVersion', '')
  .param('labelSelector', 'a=b')
  .build();

const expired = (): ApiError =>
  new ApiError({
    kind: 'Status',
    status: 'Failure',
    code: 410,
    reason: 'Expired',
    message: 'The provided continue parameter is too old',
  });

/** A fake list endpoint: items 0…n-1, `limit` per page, continue tokens `c<offset>`. */
function fakeList(total: number, expireAt?: string) {
  const queries: string[] = [];
  const fetch = (request: RestRequest): Promise<ListObject<number>> => {
    queries.push(request.query);
    const params = new URLSearchParams(request.query);
    const token = params.get('continue') ?? '';
    if (expireAt !== undefined && token === expireAt) return Promise.reject(expired());
    const limit = Number(params.get('limit') ?? total);
    const offset = token === '' ? 0 : Number(token.slice(1));
    const items = Array.from(
      { length: Math.min(limit, total - offset) },
      (_, index) => offset + index,
    );
    const next = offset + items.length;
    return Promise.resolve({
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '7', ...(next < total ? { continue: `c${next}` } : {}) },
      items,
    });
  };
  return { fetch, queries };
}

describe('ContinueTokenPager', () => {
  it('follows continue tokens page by page, keeping the other parameters', async () => {
    const { fetch, queries } = fakeList(10);
    const pages: number[][] = [];
    for await (const page of new ContinueTokenPager(fetch, base, { pageSize: 4 })) {
      expect(page.restarted).toBe(false);
      pages.push(page.items);
    }
    expect(pages).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(queries).toEqual([
      '?labelSelector=a%3Db&limit=4&resourceVersion=',
      '?continue=c4&labelSelector=a%3Db&limit=4&resourceVersion=',
      '?continue=c8&labelSelector=a%3Db&limit=4&resourceVersion=',
    ]);
  });

  it('falls back to one full list when a continue token expires (G5)', async () => {
    const { fetch, queries } = fakeList(10, 'c8');
    const pages = [];
    for await (const page of new ContinueTokenPager(fetch, base, { pageSize: 4 })) pages.push(page);
    expect(pages.map((page) => page.restarted)).toEqual([false, false, true]);
    expect(pages[2]?.items).toEqual([...Array(10).keys()]);
    expect(queries.at(-1)).toBe('?labelSelector=a%3Db&resourceVersion=');
    const list = await new ContinueTokenPager(fetch, base, { pageSize: 4 }).list();
    expect(list.items).toEqual([...Array(10).keys()]);
  });

  it('list() joins all pages and drops the continue token', async () => {
    const { fetch } = fakeList(1234);
    const list = await new ContinueTokenPager(fetch, base).list();
    expect(list.items).toHaveLength(1234);
    expect(list.metadata).toEqual({ resourceVersion: '7' });
    expect(list.kind).toBe('ConfigMapList');
  });

  it('throws an expired error on the first page', async () => {
    const fetch = (): Promise<ListObject<number>> => Promise.reject(expired());
    await expect(new ContinueTokenPager(fetch, base).list()).rejects.toBeInstanceOf(ApiError);
  });
});
