import { isGone } from '../errors.js';
import type { ListObject } from '../response/list-object.js';
import { withParams, type RestRequest } from '../request/rest-request.js';
import type { ListPage, ListPager, PagerOptions } from './list-pager.js';

/** DEFAULT_PAGE_SIZE is client-go's pager page size. */
const DEFAULT_PAGE_SIZE = 500;

/**
 * ContinueTokenPager is a `RestClient`'s {@link ListPager}: it pages through a list request with
 * `limit` and `continue` (client-go's `tools/pager`): iterate it for one {@link ListPage} per
 * server page, or call `list()` for everything at once.
 * When a continue token expires (410 on a later page), it falls back to one full list without
 * `limit` — with the request's own `resourceVersion` — and yields it as a page with
 * `restarted: true`; `list()` then returns just that list. An error on the first page is thrown.
 * Each iteration starts from the first page; pages are fetched one at a time, on demand.
 */
export class ContinueTokenPager<T> implements ListPager<T> {
  readonly #fetch: (request: RestRequest) => Promise<ListObject<T>>;
  readonly #request: RestRequest;
  readonly #pageSize: number;

  constructor(
    fetch: (request: RestRequest) => Promise<ListObject<T>>,
    request: RestRequest,
    options: PagerOptions = {},
  ) {
    this.#fetch = fetch;
    this.#request = request;
    this.#pageSize = Math.max(1, Math.trunc(options.pageSize ?? DEFAULT_PAGE_SIZE));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ListPage<T>, void, undefined> {
    let continueToken: string | undefined;
    for (;;) {
      let list: ListObject<T>;
      try {
        list = await this.#fetch(
          withParams(this.#request, { limit: String(this.#pageSize), continue: continueToken }),
        );
      } catch (error) {
        if (continueToken === undefined || !isGone(error)) throw error;
        const full = await this.#fetch(
          withParams(this.#request, { limit: undefined, continue: undefined }),
        );
        yield { list: full, items: full.items ?? [], restarted: true };
        return;
      }
      yield { list, items: list.items ?? [], restarted: false };
      continueToken = list.metadata?.continue;
      if (continueToken === undefined || continueToken === '') return;
    }
  }

  /** list fetches every page and returns one list holding all items (metadata of the last page). */
  async list(): Promise<ListObject<T>> {
    let items: T[] = [];
    let last: ListObject<T> | undefined;
    for await (const page of this) {
      items = page.restarted
        ? [...page.items]
        : items.length === 0
          ? page.items
          : items.concat(page.items);
      last = page.list;
    }
    const metadata = { ...last?.metadata };
    delete metadata.continue;
    return { ...last, metadata, items };
  }
}
