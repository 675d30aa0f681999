import type { ChangeBus } from '../engine/change-bus.js';
import { ApiKeyStore } from '../storage/api-keys.js';
import type { Database } from '../storage/dialect.js';
import { API_KEY_REVOCATIONS_GENERATION } from '../storage/generations.js';
import { watchGeneration } from './generation-watch.js';

/** PostgreSQL channel on which instances tell each other an API key was revoked (the payload is its id). */
export const API_KEYS_CHANNEL = 'diglot_api_keys';

/**
 * Revocations of API keys, told at once to what trusts a key for a while:
 * the authenticator's cache of looked-up keys and the streams a key opened.
 * A revocation committed here is applied here and, on PostgreSQL, sent to
 * the other instances on a channel; one that arrives applies the same. On
 * SQLite, other processes on the file hear of it within a second through a
 * generation the revocation moves (`ApiKeyStore.revoke`), and then read
 * which keys are revoked. Costs nothing per request: nothing is looked up
 * until a key is revoked.
 */
export interface KeyRevocations {
  /** Calls `end` once the key is revoked; returns the cancel function. */
  watch(keyId: string, end: () => void): () => void;
  /** `forget` hears each revoked key's id, or undefined when some may have been missed (a lost connection): forget them all. */
  onRevoke(forget: (keyId: string | undefined) => void): () => void;
  /** A revocation this process committed: applied here, and told to the other instances before it resolves. */
  revoked(keyId: string): Promise<void>;
  close(): Promise<void>;
}

export async function createKeyRevocations(db: Database, changes: Pick<ChangeBus, 'subscribe'>): Promise<KeyRevocations> {
  const watchers = new Map<string, Set<() => void>>();
  const forgetters = new Set<(keyId: string | undefined) => void>();
  const apply = (keyId: string | undefined): void => {
    for (const forget of forgetters) forget(keyId);
    if (keyId === undefined) return;
    const ends = watchers.get(keyId);
    watchers.delete(keyId);
    for (const end of ends ?? []) end();
  };
  const unlisten = await db.listen?.(API_KEYS_CHANNEL, (payload) => apply(payload === '' ? undefined : payload)).catch(() => undefined);
  // Without a channel: the keys known revoked, and those revoked since, once the generation moved.
  const store = new ApiKeyStore(db);
  const revokedIds = async (): Promise<Set<string>> => new Set((await store.list()).flatMap((key) => (key.revokedAt === null ? [] : [key.id])));
  let known = new Set<string>();
  const generation = await watchGeneration(db, changes, API_KEY_REVOCATIONS_GENERATION, async () => {
    const now = await revokedIds().catch((error: unknown) => {
      // Until it can be read (it is tried again), no key is trusted from memory.
      apply(undefined);
      throw error;
    });
    const fresh = [...now].filter((id) => !known.has(id));
    known = now;
    for (const id of fresh) apply(id);
  });
  // Before a server migrated its database there is no table, and nothing revoked.
  if (db.listen === undefined) known = await revokedIds().catch(() => new Set<string>());
  return {
    watch(keyId, end) {
      const ends = watchers.get(keyId) ?? new Set();
      ends.add(end);
      watchers.set(keyId, ends);
      return () => {
        ends.delete(end);
        if (ends.size === 0 && watchers.get(keyId) === ends) watchers.delete(keyId);
      };
    },
    onRevoke(forget) {
      forgetters.add(forget);
      return () => forgetters.delete(forget);
    },
    async revoked(keyId) {
      apply(keyId);
      await db.notify?.(API_KEYS_CHANNEL, keyId).catch(() => undefined);
    },
    close: async () => {
      generation.stop();
      await unlisten?.();
    },
  };
}
