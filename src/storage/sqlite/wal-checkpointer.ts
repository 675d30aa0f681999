import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointWorkerData } from './wal-checkpoint-worker.js';
import type { CommitWatch } from './wal-commits.js';

/** SQLite's own auto-checkpoint threshold, in WAL frames (pages). */
export const DEFAULT_CHECKPOINT_FRAMES = 1000;
/** The main connection still checkpoints for itself past this many times the threshold. */
const BACKSTOP = 4;
/** Commits between two looks at the WAL-index header (a look is one small read). */
const LOOK_EVERY = 8;

const REQUEST = 0;
const STOP = 1;

// Compiled, this module and the worker's are both .js in dist/; run from
// source (the tests), both are .ts and Node strips the worker's types.
const WORKER_URL = new URL(`./wal-checkpoint-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Copies the WAL into the database file on a worker thread, instead of in
 * the middle of a request.
 *
 * SQLite's auto-checkpoint runs inside the COMMIT that crosses its threshold,
 * on the thread that committed: it copies up to a thousand pages into the
 * database file and syncs twice while the event loop serves nothing, a
 * stall every few hundred creates. Here the commit only bumps
 * a counter; every few commits the main thread looks at the WAL-index header
 * (one small read), and when the WAL holds `frames` frames not yet copied it
 * asks a worker thread, with its own connection, for a PASSIVE checkpoint,
 * which neither waits for nor blocks readers and writers.
 *
 * The main connection keeps an auto-checkpoint at four times the threshold.
 * It is a backstop if the worker falls behind or dies, and it is what resets
 * the WAL to its start: SQLite restarts the WAL only when a write begins
 * with every frame already copied, which a thread copying behind a busy
 * writer rarely sees. By then the worker has copied nearly everything, so the
 * backstop's checkpoint is short. The WAL file therefore grows to about four
 * times the threshold (16 MiB with 4 KiB pages) under sustained writes,
 * against about 4 MiB with SQLite's default.
 *
 * The thread starts with the first checkpoint due, so a server that only
 * reads never pays for it (about 13 MiB of memory).
 */
export class WalCheckpointer {
  readonly #db: BetterSqlite3.Database;
  readonly #watch: CommitWatch;
  readonly #frames: number;
  readonly #slots = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  #commits = 0;
  #worker: { readonly thread: Worker; readonly exited: Promise<void> } | undefined;
  #failed = false;

  constructor(db: BetterSqlite3.Database, watch: CommitWatch, frames: number = DEFAULT_CHECKPOINT_FRAMES) {
    this.#db = db;
    this.#watch = watch;
    this.#frames = frames;
    db.pragma(`wal_autocheckpoint = ${frames * BACKSTOP}`);
  }

  /** Called after each commit on the main connection. */
  noteCommit(): void {
    if (++this.#commits % LOOK_EVERY !== 0 || this.#failed) return;
    // One asked for and not yet done is enough.
    if (Atomics.load(this.#slots, REQUEST) === 1) return;
    if (this.#watch.framesToCheckpoint() < this.#frames) return;
    this.#worker ??= this.#start();
    Atomics.store(this.#slots, REQUEST, 1);
    Atomics.notify(this.#slots, REQUEST);
  }

  /** Ends the thread (after the checkpoint under way, if any); the connection is closed after this. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    // Unreferenced, the thread would let the process end before it has closed its connection.
    worker.thread.ref();
    Atomics.store(this.#slots, STOP, 1);
    Atomics.store(this.#slots, REQUEST, 1);
    Atomics.notify(this.#slots, REQUEST);
    await worker.exited;
  }

  #start(): { thread: Worker; exited: Promise<void> } {
    const workerData: CheckpointWorkerData = { path: this.#db.name, slots: this.#slots, request: REQUEST, stop: STOP };
    const thread = new Worker(WORKER_URL, { workerData });
    // Waiting for the next request must not keep the process alive.
    thread.unref();
    const exited = new Promise<void>((resolve) => {
      thread.once('error', () => this.#fallBack());
      thread.once('exit', () => resolve());
    });
    return { thread, exited };
  }

  /** The worker died (it could not open the file, or a checkpoint failed): the main connection checkpoints for itself again. */
  #fallBack(): void {
    this.#failed = true;
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${this.#frames}`);
  }
}
