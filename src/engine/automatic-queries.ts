import type { Database } from '../storage/dialect.js';
import { PersistedQueryStore } from '../storage/persisted-queries.js';
import { LruCache } from '../util/lru-cache.js';

export interface AutomaticQueriesOptions {
  /** Documents remembered in this process (LRU). */
  readonly cacheSize: number;
  /** Largest document stored in the database, in UTF-8 bytes: a larger one still runs, but is remembered by this instance only. */
  readonly maxDocumentBytes: number;
  /** Documents kept in the database: past this, the oldest registered are deleted (their clients register them again on a miss). */
  readonly maxStored: number;
}

/**
 * Automatic persisted queries shared by every instance on the database: an
 * in-memory LRU read through to the shared table. The table is append-only
 * and keyed by the document's hash, so a cached entry is never stale; a
 * request whose document is known here touches nothing, and the database
 * is written only when this instance first sees a document registered.
 */
export interface AutomaticQueries {
  /** The document with this hash, from memory or else the database. */
  find(hash: string): Promise<string | undefined>;
  /**
   * Remembers a document whose hash the caller has checked; stores it for the
   * other instances the first time this one sees it. Never throws: what the
   * database could not store is returned, for the log (the request runs on).
   */
  register(hash: string, document: string): Promise<unknown>;
}

export function createAutomaticQueries(db: Database, options: AutomaticQueriesOptions): AutomaticQueries {
  const store = new PersistedQueryStore(db);
  const cache = new LruCache<string, string>(options.cacheSize);
  // Concurrent misses on one hash share one SELECT.
  const loading = new Map<string, Promise<string | undefined>>();
  return {
    async find(hash) {
      const known = cache.get(hash);
      if (known !== undefined) return known;
      let pending = loading.get(hash);
      if (pending === undefined) {
        pending = store.find(hash).finally(() => loading.delete(hash));
        loading.set(hash, pending);
      }
      const document = await pending;
      if (document !== undefined) cache.set(hash, document);
      return document;
    },
    async register(hash, document) {
      if (cache.get(hash) !== undefined) return undefined;
      cache.set(hash, document);
      if (Buffer.byteLength(document, 'utf8') > options.maxDocumentBytes) return undefined;
      try {
        if (await store.insert(hash, document, Date.now())) await store.prune(options.maxStored);
        return undefined;
      } catch (error) {
        // Only the sharing is lost; forgotten here, the document is stored again when next registered.
        cache.delete(hash);
        return error;
      }
    },
  };
}
