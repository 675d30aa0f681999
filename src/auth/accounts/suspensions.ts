import type { ChangeBus } from '../../engine/change-bus.js';
import type { Database } from '../../storage/dialect.js';
import type { AccountStore } from '../../storage/accounts.js';
import { SUSPENSIONS_GENERATION } from '../../storage/generations.js';
import { watchGeneration } from '../generation-watch.js';

/** PostgreSQL channel on which instances tell each other of a suspension or its end (`1<id>` or `0<id>`). */
export const SUSPENSIONS_CHANNEL = 'diglot_suspensions';

/**
 * The suspended accounts, known in process: read once at start (one
 * statement), then kept current by the writes this process commits and by
 * the other processes': on PostgreSQL their notices on a channel (re-read
 * whole after the listening connection was lost), on SQLite a generation
 * they move, looked at once a second (re-read whole when it moved).
 * Checking a request costs a set lookup, never a statement; a stream opened
 * by the account ends at once.
 */
export interface Suspensions {
  has(accountId: string): boolean;
  /** Calls `end` once the account is suspended; returns the cancel function. */
  watch(accountId: string, end: () => void): () => void;
  /** A committed change of this process: applied here, and told to the other processes before it resolves. */
  changed(accountId: string, suspended: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function createSuspensions(db: Database, store: AccountStore, changes: Pick<ChangeBus, 'subscribe'>): Promise<Suspensions> {
  // Before the first read: a change another process makes after it moves the generation again.
  const generation = await watchGeneration(db, changes, SUSPENSIONS_GENERATION, () => reload());
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
    async changed(accountId, isSuspended) {
      apply(accountId, isSuspended);
      await db.notify?.(SUSPENSIONS_CHANNEL, `${isSuspended ? '1' : '0'}${accountId}`).catch(() => undefined);
      await generation.bump().catch(() => undefined);
    },
    close: async () => {
      generation.stop();
      await unlisten?.();
    },
  };
}
