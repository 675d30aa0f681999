// The thread that copies the WAL into the database file for a SQLite
// connection on the main thread (see wal-checkpointer.ts). It runs as its
// own module, so it imports nothing of the project's: in development Node
// runs this file from source with its types stripped, and a sibling import
// (`./x.js`) would name a file that only exists once compiled.

import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

/** What the main thread passes in: the database, the shared slots, and which slot is which. */
export interface CheckpointWorkerData {
  readonly path: string;
  readonly slots: Int32Array;
  /** Set to 1 by the main thread to ask for a checkpoint; set back to 0 here once it is done. */
  readonly request: number;
  /** Set to 1 by the main thread to end the thread. */
  readonly stop: number;
}

const { path, slots, request, stop } = workerData as CheckpointWorkerData;

// A busy timeout of 0: a checkpoint that finds another one under way (another
// process's, or the main connection's own backstop) gives up at once, and the
// next request tries again.
const db = new BetterSqlite3(path, { fileMustExist: true, timeout: 0 });
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

// Atomics.wait blocks this thread until the main thread asks; it is never
// called on the main thread.
for (;;) {
  Atomics.wait(slots, request, 0);
  if (Atomics.load(slots, stop) === 1) break;
  try {
    // PASSIVE: copies what no reader still needs, without waiting for or
    // blocking readers and writers; the main thread keeps committing meanwhile.
    checkpoint.all();
  } catch (error) {
    // Someone else is checkpointing: the next request retries. Anything else
    // ends the thread, and the main connection checkpoints for itself again.
    if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
  }
  Atomics.store(slots, request, 0);
}
db.close();
