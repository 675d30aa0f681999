import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ApiError } from '../../errors/api-error.js';
import type { Model } from '../../schema/model.js';
import type { Database, SqlRunner, SqlValue } from '../dialect.js';
import { createErrorLookup, type ErrorLookup } from '../map-db-error.js';
import type { SchemaDialect } from '../migrate/schema-spec.js';
import { StorageOpenError } from '../storage-open-error.js';
import { mapSqliteError } from './map-sqlite-error.js';
import { DEADLINE_FUNCTION, sqliteHooks } from './sqlite-hooks.js';
import { estimateSqliteRows } from './estimate-rows.js';
import { createSqliteSchema } from './sqlite-schema.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { watchCommits } from './wal-commits.js';

export interface SqliteOptions {
  /** Lets errors name model fields (`User.email`) instead of columns. */
  readonly model?: Model;
  /** How long a write waits for another process's lock before failing (SQLite's busy_timeout). Default 5000. */
  readonly busyTimeoutMs?: number;
  /** Prepared statements kept, least recently used dropped first. Default 500. */
  readonly statementCacheSize?: number;
  /** WAL frames (pages) not yet in the database file that make a checkpoint due; it runs on a worker thread. Default 1000. */
  readonly checkpointFrames?: number;
  /** A statement's time budget in ms (0: none): a scan past it stops with QUERY_TIMEOUT (see sqliteHooks.scanGuard). Default 5000. */
  readonly statementTimeoutMs?: number;
}

const NO_PARAMS: readonly SqlValue[] = Object.freeze([]);

/** Statements worth keeping prepared: DDL and pragmas run once. */
const CACHEABLE = /^\s*(?:select|with|insert|update|delete|replace|values)\b/i;

/**
 * Which transaction (if any) the current async call chain runs inside, so
 * that a statement sent to the database object from inside a transaction's
 * work joins it instead of waiting behind it.
 */
const transactionScope = new AsyncLocalStorage<object>();

/**
 * Opens a SQLite file (`:memory:` allowed) with WAL, foreign keys, a busy
 * timeout and synchronous=NORMAL (durable with WAL, and far fewer fsyncs).
 */
export function openSqlite(path: string, options: SqliteOptions = {}): Promise<Database> {
  try {
    return Promise.resolve(new SqliteDatabase(connect(path, options), options));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function connect(path: string, options: SqliteOptions): BetterSqlite3.Database {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(path, { timeout: busyTimeoutMs });
    // The first statements read the file header: a file that is not a
    // database, or one locked by another process, fails here, at open.
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
    return db;
  } catch (error) {
    db?.close();
    throw openError(path, error, busyTimeoutMs);
  }
}

function openError(path: string, error: unknown, busyTimeoutMs: number): StorageOpenError {
  const code = (error as { code?: unknown }).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (/directory does not exist/.test(reason)) {
    return new StorageOpenError('DIRECTORY_MISSING', `Cannot open SQLite database ${path}: the folder ${dirname(path)} does not exist.`, { cause: error });
  }
  if (code === 'SQLITE_NOTADB') {
    return new StorageOpenError('NOT_A_DATABASE', `${path} is not a SQLite database (pick another file, or pass a postgres:// URL).`, { cause: error });
  }
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
    return new StorageOpenError('LOCKED', `${path} is locked by another process (waited ${busyTimeoutMs} ms); stop it or use another file.`, { cause: error });
  }
  if (isDirectory(path)) {
    return new StorageOpenError('CANNOT_OPEN', `Cannot open SQLite database ${path}: it is a directory.`, { cause: error });
  }
  return new StorageOpenError('CANNOT_OPEN', `Cannot open SQLite database ${path}: ${reason}.`, { cause: error });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * better-sqlite3 binds every JS number as a REAL, so `'/' || ?` with 64
 * gives '/64.0' and `json_object('n', ?)` gives 3.0: integers go as BigInt
 * (bound as INTEGER). Booleans, which it refuses, are stored as 0/1.
 */
function bindable(params: readonly SqlValue[]): readonly SqlValue[] {
  for (const value of params) {
    if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value))) return params.map(toBound);
  }
  return params;
}

function toBound(value: SqlValue): SqlValue {
  if (typeof value === 'boolean') return value ? 1n : 0n;
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/**
 * One connection, used synchronously (better-sqlite3 is synchronous and, for
 * an embedded database, faster that way) behind the async contract.
 *
 * Transactions: the connection is shared, so while a transaction's async
 * work is in flight nothing else may use it. Transactions queue (FIFO) and
 * while one is open or waiting, other statements queue behind it; with no
 * transaction about, statements run at once. A statement sent to this
 * object from inside the work joins the transaction; a nested
 * `transaction()` call is rejected.
 *
 * Group commit: a transaction whose work succeeded is not committed at once.
 * Its COMMIT waits for the end of the event loop's turn, and transactions
 * that run in the meantime join the same SQLite transaction, each inside a
 * savepoint of its own, so a failed one rolls back alone. One COMMIT then
 * writes the pages they share (the table's last leaf, the change clock, the
 * outbox) once instead of once each. A caller's promise settles only after
 * that COMMIT, so nothing is acknowledged before it is durable, and any
 * other statement commits the open group first, so no read ever sees work
 * that is not committed.
 *
 * Reads run in batches too: a statement sent through `all()` from outside a
 * transaction runs at the end of the event loop's turn, together with the
 * others sent in that turn, back to back. Between two requests the CPU's
 * caches fill with the HTTP stack's code and data, and SQLite then walks its
 * B-trees cold; statements run back to back find them warm. Anything issued after a deferred operation (`run()`, a transaction)
 * waits behind it, so operations still run in the order they were issued.
 */
class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  readonly sql = sqliteHooks;
  readonly supports = Object.freeze({ aggregateFilter: true, transactionalDdl: true, concurrentWrites: false, writableCte: false });
  readonly schema: SchemaDialect;
  readonly dataVersion: () => Promise<number>;

  readonly #db: BetterSqlite3.Database;
  readonly #cache = new Map<string, BetterSqlite3.Statement>();
  readonly #cacheSize: number;
  #errors: ErrorLookup;
  readonly #begin: BetterSqlite3.Statement;
  readonly #commit: BetterSqlite3.Statement;
  readonly #rollback: BetterSqlite3.Statement;
  readonly #checkpointer: WalCheckpointer | undefined;
  #count = 0;
  /** Operations queued behind (or being) a transaction. */
  #queued = 0;
  #tail: Promise<unknown> = Promise.resolve();
  /** Scope token of the open transaction. */
  #current: object | undefined;
  /** Operations waiting for the end of this event-loop turn, in the order they were issued (see the class comment). */
  #deferred: (() => void)[] = [];
  /** Transactions done with their work and waiting for the group's COMMIT; undefined when no group is open. */
  #group: { settle: (error?: Error) => void }[] | undefined;
  /** The group's COMMIT came due while a member's work was still running. */
  #groupDue = false;
  readonly #savepoint: BetterSqlite3.Statement;
  readonly #release: BetterSqlite3.Statement;
  readonly #rollbackToSavepoint: BetterSqlite3.Statement;
  readonly #budgetMs: number;
  /** When the running statement's budget ends (performance.now()). */
  #deadline = Infinity;

  constructor(db: BetterSqlite3.Database, options: SqliteOptions) {
    this.#db = db;
    this.#budgetMs = options.statementTimeoutMs ?? 5000;
    db.function(DEADLINE_FUNCTION, { deterministic: false, directOnly: true }, () => {
      if (performance.now() <= this.#deadline) return 1;
      throw new ApiError('QUERY_TIMEOUT', { detail: `The query ran past its time budget of ${this.#budgetMs} ms and was stopped; ask for less, or filter on indexed fields.` });
    });
    this.#cacheSize = options.statementCacheSize ?? 500;
    this.#errors = createErrorLookup(options.model);
    // IMMEDIATE takes the write lock up front: a deferred transaction that
    // reads and then writes can fail with SQLITE_BUSY where waiting would do.
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#savepoint = db.prepare('SAVEPOINT diglot_member');
    this.#release = db.prepare('RELEASE diglot_member');
    this.#rollbackToSavepoint = db.prepare('ROLLBACK TO diglot_member');
    const watch = db.pragma('journal_mode', { simple: true }) === 'wal' ? watchCommits(db.name) : undefined;
    this.#checkpointer = watch === undefined ? undefined : new WalCheckpointer(db, watch, options.checkpointFrames);
    if (watch !== undefined) {
      this.dataVersion = () => Promise.resolve(watch.read());
    } else {
      const dataVersion = db.prepare('PRAGMA data_version').pluck();
      this.dataVersion = () => Promise.resolve(dataVersion.get() as number);
    }
    this.schema = createSqliteSchema((work) => this.#exclusive(work, true));
  }

  useModel(model: Model): void {
    this.#errors = createErrorLookup(model);
  }

  get statementCount(): number {
    return this.#count;
  }

  all<Row = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    if (this.#inOpenTransaction()) return this.#attempt(() => this.#all<Row>(sql, params));
    return this.#defer(() => this.#outside(() => this.#all<Row>(sql, params)));
  }

  run(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<{ readonly changes: number }> {
    if (this.#inOpenTransaction()) return this.#attempt(() => this.#run(sql, params));
    return this.#inOrder(() => this.#outside(() => this.#run(sql, params)));
  }

  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.#exclusive(work, false);
  }

  /** A statement from outside any transaction: it runs after the queue, and after the open group's COMMIT. */
  #outside<T>(operation: () => T): Promise<T> {
    const committed = (): T => {
      this.#commitGroup();
      return operation();
    };
    return this.#queued > 0 ? this.#enqueue(committed) : this.#attempt(committed);
  }

  /** Runs `operation` now, unless operations issued before it are deferred: then after them. */
  #inOrder<T>(operation: () => Promise<T>): Promise<T> {
    return this.#deferred.length > 0 ? this.#defer(operation) : operation();
  }

  /** Runs `operation` at the end of this event-loop turn, with the others deferred in it, in the order they were issued. */
  #defer<T>(operation: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#deferred.push(() => void operation().then(resolve, reject)) === 1) setImmediate(this.#runDeferred);
    });
  }

  readonly #runDeferred = (): void => {
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const operation of deferred) operation();
  };

  #attempt<T>(operation: () => T): Promise<T> {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(this.#map(error));
    }
  }

  ping(): Promise<void> {
    return this.all('SELECT 1').then(() => undefined);
  }

  estimateRows(tables: readonly string[]): Promise<Map<string, number>> {
    return estimateSqliteRows(this, tables);
  }

  async close(): Promise<void> {
    await this.#inOrder(() => Promise.resolve());
    await this.#tail;
    this.#commitGroup();
    await this.#checkpointer?.close();
    this.#cache.clear();
    if (this.#db.open) this.#db.close();
  }

  #all<Row>(sql: string, params: readonly SqlValue[]): Row[] {
    const statement = this.#prepare(sql);
    this.#count++;
    this.#deadline = this.#budgetMs > 0 ? performance.now() + this.#budgetMs : Infinity;
    if (statement.reader) {
      const rows = statement.all(bindable(params)) as Row[];
      // INSERT … RETURNING and the like write too.
      if (!statement.readonly) this.#noteAutocommit();
      return rows;
    }
    statement.run(bindable(params));
    this.#noteAutocommit();
    return [];
  }

  #run(sql: string, params: readonly SqlValue[]): { readonly changes: number } {
    const statement = this.#prepare(sql);
    this.#count++;
    const { changes } = statement.run(bindable(params));
    this.#noteAutocommit();
    return { changes };
  }

  /** A statement that ran outside a transaction committed on its own (transactions are only opened by `#transact`). */
  #noteAutocommit(): void {
    if (this.#current === undefined) this.#checkpointer?.noteCommit();
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    const cached = this.#cache.get(sql);
    if (cached !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the front is the least recently used.
      this.#cache.delete(sql);
      this.#cache.set(sql, cached);
      return cached;
    }
    const statement = this.#db.prepare(sql);
    if (CACHEABLE.test(sql)) {
      if (this.#cache.size >= this.#cacheSize) {
        const oldest = this.#cache.keys().next();
        if (oldest.done !== true) this.#cache.delete(oldest.value);
      }
      this.#cache.set(sql, statement);
    }
    return statement;
  }

  #inOpenTransaction(): boolean {
    return this.#current !== undefined && transactionScope.getStore() === this.#current;
  }

  #enqueue<T>(operation: () => T | Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail.then(() => {
      try {
        return operation();
      } catch (error) {
        throw this.#map(error);
      }
    });
    this.#tail = result.then(
      () => {
        this.#queued--;
      },
      () => {
        this.#queued--;
      },
    );
    return result;
  }

  #exclusive<T>(work: (tx: SqlRunner) => Promise<T>, withoutForeignKeys: boolean): Promise<T> {
    if (this.#inOpenTransaction()) {
      return Promise.reject(new Error('Nested transaction: use the runner the outer transaction passed to its work.'));
    }
    if (withoutForeignKeys) {
      return this.#inOrder(() =>
        this.#enqueue(() => {
          this.#commitGroup();
          return this.#transact(work, true);
        }),
      );
    }
    // The queue moves on when the work is done; the caller hears back after the group's COMMIT.
    return this.#inOrder(() => this.#enqueue(() => this.#member(work))).then((member) => member.committed);
  }

  /**
   * Runs `work` as a member of the open group (in a savepoint), or opens a
   * group with it (BEGIN IMMEDIATE) and schedules the group's COMMIT for the
   * end of this event-loop turn. Resolves once the work is done, with a
   * promise that settles when its changes are committed.
   */
  async #member<T>(work: (tx: SqlRunner) => Promise<T>): Promise<{ committed: Promise<T> }> {
    const group = this.#group;
    try {
      if (group === undefined) this.#begin.run();
      else this.#savepoint.run();
    } catch (error) {
      throw this.#map(error);
    }
    let result: T;
    try {
      result = await this.#runWork(work);
      if (group !== undefined) this.#release.run();
    } catch (error) {
      const mapped = this.#map(error);
      if (group !== undefined && this.#db.inTransaction) {
        this.#rollbackToSavepoint.run();
        this.#release.run();
      } else {
        // Alone in the transaction, or SQLite rolled all of it back (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM): the members before this one are lost too.
        if (this.#db.inTransaction) this.#rollback.run();
        this.#group = undefined;
        for (const member of group ?? []) member.settle(mapped);
      }
      this.#commitIfDue();
      throw mapped;
    }
    if (this.#group === undefined) {
      this.#group = [];
      setImmediate(() => {
        if (this.#current === undefined) this.#commitGroup();
        else this.#groupDue = true;
      });
    }
    const committed = new Promise<T>((resolve, reject) => {
      this.#group?.push({ settle: (error) => (error === undefined ? resolve(result) : reject(error)) });
    });
    this.#commitIfDue();
    return { committed };
  }

  #commitIfDue(): void {
    if (!this.#groupDue) return;
    this.#groupDue = false;
    this.#commitGroup();
  }

  /** Commits the open group, if any, and tells its members. */
  #commitGroup(): void {
    const members = this.#group;
    if (members === undefined) return;
    this.#group = undefined;
    this.#groupDue = false;
    let failure: Error | undefined;
    try {
      this.#commit.run();
      this.#checkpointer?.noteCommit();
    } catch (error) {
      failure = this.#map(error);
      try {
        if (this.#db.inTransaction) this.#rollback.run();
      } catch {
        // The COMMIT's error is the one to report; every member must still hear it.
      }
    }
    for (const member of members) member.settle(failure);
  }

  /**
   * BEGIN IMMEDIATE … COMMIT around `work`, for migrations: foreign keys are
   * switched off around the transaction (the pragma is a no-op inside one)
   * so table rebuilds do not cascade, and checked before commit instead:
   * only when the work changed a row or the schema, because the check reads
   * every table with a foreign key, and every `serve` starts with a migration
   * that usually finds nothing to do (on the benchmark's data the check took
   * 17 MiB of page cache at start-up).
   */
  async #transact<T>(work: (tx: SqlRunner) => Promise<T>, withoutForeignKeys: boolean): Promise<T> {
    if (withoutForeignKeys) this.#db.pragma('foreign_keys = OFF');
    try {
      try {
        this.#begin.run();
      } catch (error) {
        throw this.#map(error);
      }
      try {
        const before = withoutForeignKeys ? this.#footprint() : undefined;
        const result = await this.#runWork(work);
        if (before !== undefined && this.#footprint() !== before) this.#checkForeignKeys();
        this.#commit.run();
        this.#checkpointer?.noteCommit();
        return result;
      } catch (error) {
        // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM) have rolled back already.
        if (this.#db.inTransaction) this.#rollback.run();
        throw this.#map(error);
      }
    } finally {
      if (withoutForeignKeys) this.#db.pragma('foreign_keys = ON');
    }
  }

  /** Runs a transaction's work with a runner that is closed once the work ends; statements sent to this object from inside it join it. */
  async #runWork<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const scope = {};
    let open = true;
    const finished = (): Promise<never> => Promise.reject(new Error('This transaction has already ended.'));
    const tx: SqlRunner = {
      all: <Row = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> =>
        open ? this.#attempt(() => this.#all<Row>(sql, params)) : finished(),
      run: (sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<{ readonly changes: number }> =>
        open ? this.#attempt(() => this.#run(sql, params)) : finished(),
    };
    this.#current = scope;
    try {
      return await transactionScope.run(scope, () => work(tx));
    } finally {
      open = false;
      this.#current = undefined;
    }
  }

  /** Moves when a statement changes a row (`total_changes()`) or the schema (`schema_version`). */
  #footprint(): string {
    return `${String(this.#db.pragma('schema_version', { simple: true }))}:${String(this.#db.prepare('SELECT total_changes()').pluck().get())}`;
  }

  #checkForeignKeys(): void {
    const broken = this.#db.prepare('PRAGMA foreign_key_check').all() as { table: string; parent: string }[];
    const first = broken[0];
    if (first !== undefined) {
      throw new Error(
        `The migration would leave ${broken.length} row${broken.length === 1 ? '' : 's'} of ${first.table} pointing at missing ${first.parent} rows; nothing was changed.`,
      );
    }
  }

  #map(error: unknown): Error {
    return mapSqliteError(error, this.#errors);
  }
}
