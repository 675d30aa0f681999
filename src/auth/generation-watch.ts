import type { ChangeBus } from '../engine/change-bus.js';
import type { Database } from '../storage/dialect.js';
import { GenerationStore } from '../storage/generations.js';

/** How often a process without a channel looks whether another one moved a generation. */
export const GENERATION_POLL_MS = 1000;

export interface GenerationWatch {
  /** Tells the other processes: moves the generation (where there is no channel; a no-op elsewhere). */
  bump(): Promise<void>;
  stop(): void;
}

/**
 * Where the database has no channel (SQLite, whose file several processes
 * may share), hears another process's change through the counter `name`:
 * looked at once a second, and only when the database's data version moved
 * since the last look (the change bus reads it from the WAL-index, no
 * statement), so a quiet database costs nothing and a busy one a statement
 * a second, never one per request. `changed` runs after the counter was
 * seen to move; if it fails, it runs again at the next tick. On
 * PostgreSQL, which has NOTIFY, it does nothing. Resolves
 * once the counter's current value is read: whatever the caller loads after
 * that is either seen or followed by a move.
 */
export async function watchGeneration(db: Database, changes: Pick<ChangeBus, 'subscribe'>, name: string, changed: () => Promise<void>): Promise<GenerationWatch> {
  if (db.listen !== undefined) return { bump: () => Promise.resolve(), stop: () => undefined };
  const store = new GenerationStore(db);
  // Unreadable (a database not migrated yet): the first look that can read it counts as a move.
  let known = await store.read(name).catch(() => -1);
  let looking = false;
  /** The last look or `changed` failed (the database was busy or gone): look at the next tick, moved or not. */
  let failed = false;
  const look = async (): Promise<void> => {
    const now = await store.read(name);
    if (now === known) return;
    await changed();
    known = now;
  };
  const stop = changes.subscribe(
    (change) => {
      if (change.kind !== 'poll' || looking || !(change.moved || failed)) return;
      looking = true;
      void look()
        .then(
          () => (failed = false),
          () => (failed = true),
        )
        .finally(() => (looking = false));
    },
    { pollMs: GENERATION_POLL_MS },
  );
  return { bump: () => store.bump(name), stop };
}
