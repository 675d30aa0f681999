import type { Database } from '../../storage/dialect.js';
import type { AccountStore } from '../../storage/accounts.js';

/** PostgreSQL channel on which instances tell each other of a suspension or its end (`1<id>` or `0<id>`). */
export const SUSPENSIONS_CHANNEL = 'diglot_suspensions';

/**
 * The suspended accounts, known in process: read once at start (one
 * statement), then kept current by the writes this process commits and, on
 * PostgreSQL, by the other instances' notices on a channel (re-read whole
 * after the listening connection was lost). Checking a request costs a set
 * lookup, never a statement; a stream opened by the account ends at once.
 */
export interface Suspensions {
  has(accountId: string): boolean;
  /** Calls `end` once the account is suspended; returns the cancel function. */
  watch(accountId: string, end: () => void): () => void;
  /** A committed change of this process: applied here and told to the other instances. */
  changed(accountId: string, suspended: boolean): void;
  close(): Promise<void>;
}

export async function createSuspensions(db: Database, store: AccountStore): Promise<Suspensions> {
  let suspended = new Set(await store.suspendedIds());
  const watchers = new Map<string, Set<() => void>>();
  const apply = (accountId: string, isSuspended: boolean): void => {
    if (!isSuspended) {
      suspended.delete(accountId);
      return;
    }
    suspended.add(accountId);
    const ends = watchers.get(accountId);
    watchers.delete(accountId);
    for (const end of ends ?? []) end();
  };
  const reload = async (): Promise<void> => {
    const ids = await store.suspendedIds();
    suspended = new Set();
    for (const id of ids) apply(id, true);
  };
  const unlisten = await db
    .listen?.(SUSPENSIONS_CHANNEL, (payload) => {
      if (payload === undefined || payload === '') void reload().catch(() => undefined);
      else apply(payload.slice(1), payload.startsWith('1'));
    })
    .catch(() => undefined);

  return {
    has: (accountId) => suspended.has(accountId),
    watch(accountId, end) {
      if (suspended.has(accountId)) {
        end();
        return () => undefined;
      }
      const ends = watchers.get(accountId) ?? new Set();
      ends.add(end);
      watchers.set(accountId, ends);
      return () => {
        ends.delete(end);
        if (ends.size === 0 && watchers.get(accountId) === ends) watchers.delete(accountId);
      };
    },
    changed(accountId, isSuspended) {
      apply(accountId, isSuspended);
      void db.notify?.(SUSPENSIONS_CHANNEL, `${isSuspended ? '1' : '0'}${accountId}`).catch(() => undefined);
    },
    close: async () => {
      await unlisten?.();
    },
  };
}
