import type { ListObject } from '../response/list-object.js';

/** PagerOptions configure `RequestBuilder.pager`. */
export interface PagerOptions {
  /** pageSize is the `limit` of each page (default 500, client-go's pager default). */
  pageSize?: number | undefined;
}

/** ListPage is one page of a paged list. */
export interface ListPage<T> {
  /** list is the page as the server sent it (`items`, `metadata.continue`, `resourceVersion`). */
  list: ListObject<T>;
  items: T[];
  /**
   * restarted is true when the continue token expired and this page is a full list taken
   * instead: it holds every item, so drop what earlier pages gave you.
   */
  restarted: boolean;
}

/**
 * ListPager pages through a list with `limit`/`continue` (client-go's `tools/pager`): iterate it
 * for one {@link ListPage} per server page, or call `list()` for everything at once.
 */
export interface ListPager<T> extends AsyncIterable<ListPage<T>> {
  /** list fetches every page and returns all items in one list (client-go `ListPager.List`). */
  list(): Promise<ListObject<T>>;
}
