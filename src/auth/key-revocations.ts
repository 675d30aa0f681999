import type { Database } from '../storage/dialect.js';

/** PostgreSQL channel on which instances tell each other an API key was revoked (the payload is its id). */
export const API_KEYS_CHANNEL = 'diglot_api_keys';

/**
 * Revocations of API keys, told at once to what trusts a key for a while:
 * the authenticator's cache of looked-up keys and the streams a key opened.
 * A revocation committed here is applied here and, on PostgreSQL, sent to
 * the other instances on a channel; one that arrives applies the same.
 * Costs nothing per request: nothing is looked up until a key is revoked.
 */
export interface KeyRevocations {
  /** Calls `end` once the key is revoked; returns the cancel function. */
  watch(keyId: string, end: () => void): () => void;
  /** `forget` hears each revoked key's id, or undefined when some may have been missed (a lost connection): forget them all. */
  onRevoke(forget: (keyId: string | undefined) => void): () => void;
  /** A revocation this process committed. */
  revoked(keyId: string): void;
  close(): Promise<void>;
}

export async function createKeyRevocations(db: Pick<Database, 'listen' | 'notify'>): Promise<KeyRevocations> {
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
    revoked(keyId) {
      apply(keyId);
      void db.notify?.(API_KEYS_CHANNEL, keyId).catch(() => undefined);
    },
    close: async () => {
      await unlisten?.();
    },
  };
}
