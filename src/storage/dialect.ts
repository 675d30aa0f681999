/**
 * The dialect contract: everything the engine needs from a database, and
 * nothing more. SQLite and PostgreSQL each implement it in their own folder;
 * nothing outside those folders mentions a database by name.
 */

import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Model } from '../schema/model.js';
import type { SchemaDialect } from './migrate/schema-spec.js';

export type SqlValue = string | number | bigint | boolean | null | Buffer;

export interface DialectCapabilities {
  /** `FILTER (WHERE ...)` on aggregates. */
  readonly aggregateFilter: boolean;
  /** `ALTER TABLE ... DROP COLUMN` inside a transaction. */
  readonly transactionalDdl: boolean;
  /** Write transactions run side by side (PostgreSQL); SQLite runs one at a time. */
  readonly concurrentWrites: boolean;
  /** `INSERT`/`UPDATE`/`DELETE` inside `WITH`, several writes in one statement (PostgreSQL). */
  readonly writableCte: boolean;
  /** `SELECT … FOR UPDATE [SKIP LOCKED]` (PostgreSQL); SQLite's write transactions are exclusive instead. */
  readonly rowLocks?: boolean;
}

/** A connection or transaction: run statements. Rows are plain objects. */
export interface SqlRunner {
  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ readonly changes: number }>;
}

export interface Database extends SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  readonly sql: SqlCompilerHooks;
  readonly supports: DialectCapabilities;
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * A number that changes whenever another connection commits a change
   * clock move (on SQLite: the WAL-index header, else `PRAGMA data_version`;
   * on PostgreSQL: the same number only while this process holds the writer
   * lease), where the database offers one; lets the change clock skip
   * re-reading unchanged clocks. It may also change when nothing did, which
   * only costs that re-read.
   */
  readonly dataVersion?: () => Promise<number>;
  /**
   * Runs a write that moves change clocks, where other processes' clock
   * moves are fenced (PostgreSQL's writer lease). `guard`, when given, is
   * SQL every clock bump of the write must carry, after its `SELECT` list
   * (`INSERT … SELECT … <guard> ON CONFLICT …`). Without this member a
   * write runs as it is, with no guard. Writes within one process are not
   * guarded from each other: one change clock per Database, which notes
   * every commit of the process (the engine has one).
   */
  readonly clockWrite?: <T>(work: (guard: string | undefined) => Promise<T>) => Promise<T>;
  /**
   * Tells the other processes on the database that these tables' change
   * clocks moved in a committed write (PostgreSQL: NOTIFY), where it can;
   * live reads elsewhere then re-run at once instead of at their next look.
   */
  readonly announceChanges?: (tables: readonly string[]) => void;
  /**
   * Hears other processes' `announceChanges`; `undefined` means anything may
   * have moved (the listening connection came back after a break). Returns
   * the function that stops listening.
   */
  readonly watchChanges?: (listener: (tables: readonly string[] | undefined) => void) => () => void;
  /**
   * The model its errors name fields from (`Another User already has this
   * email.`, pointer `/email`) rather than tables and columns. The engine
   * passes its own, so a database opened without `model` names them too.
   */
  useModel(model: Model): void;
  /** Reading and changing the schema: what `migrate` works with (each driver supplies its own). */
  readonly schema: SchemaDialect;
  /**
   * Rate-limit counters that every process on this database shares
   * (PostgreSQL: a table of rate-limiter-flexible's); without this member
   * each process counts alone, in memory.
   */
  readonly sharedRateLimiter?: (options: SharedRateLimiterOptions) => Promise<RateLimiterAbstract>;
  /**
   * Where instances on this database trade their rate-limit counts in
   * batches (PostgreSQL); without it each process counts alone, in memory.
   */
  readonly rateCounts?: RateCountExchange;
  /**
   * Calls `onMessage` for each notification on `channel` sent by any
   * connection to the database (PostgreSQL's LISTEN/NOTIFY), until the
   * returned function is called; with `undefined` when the listening
   * connection came back after a break (anything may have been said
   * meanwhile). Absent where the database has none (SQLite: one process's
   * writes are seen by polling).
   */
  readonly listen?: (channel: string, onMessage: (payload: string | undefined) => void) => Promise<() => Promise<void>>;
  /** Sends a notification on `channel` (see `listen`), outside any transaction. */
  readonly notify?: (channel: string, payload: string) => Promise<void>;
  /**
   * Runs `work` while holding the named locks, which every process on the
   * database respects (PostgreSQL's advisory locks, held by a transaction
   * that `work` runs in: a statement it sends runs in that transaction).
   * `shared` locks of one name may be held together; an exclusive one waits
   * for every other. Absent where the database is one process's (SQLite).
   */
  readonly advisoryLock?: <T>(locks: readonly NamedLock[], work: () => Promise<T>) => Promise<T>;
  /** Cheap liveness probe for /healthz. */
  ping(): Promise<void>;
  /**
   * Estimated rows in each of `tables` (missing tables left out): what the
   * cost of a read that may scan a table is (plan/scan-cost.ts). Cheap and
   * approximate; the engine caches it and asks again now and then, never
   * per request.
   */
  estimateRows(tables: readonly string[]): Promise<Map<string, number>>;
  /** Number of statements sent since start (observability and tests). */
  readonly statementCount: number;
  close(): Promise<void>;
}

/** A lock of `advisoryLock`, by name (hashed to the database's lock space: two names may share a lock, which only costs a wait). */
export interface NamedLock {
  readonly name: string;
  readonly shared?: boolean;
}

/** Points one instance has spent on one key in the window ending at `windowEnd` (ms since the epoch). */
export interface RateCount {
  readonly key: string;
  readonly windowEnd: number;
  readonly points: number;
}

/**
 * Rate-limit counts shared in batches: each instance writes its own totals
 * (one row per instance, key and window, so no two instances ever wait on
 * the same row) and reads the others' in the same statement.
 */
export interface RateCountExchange {
  /** Creates the table if it is missing. */
  prepare(): Promise<void>;
  /**
   * Writes `mine` (this instance's totals so far, which only grow) as
   * `instance`'s and answers every other instance's total for the same keys
   * and windows: one statement. With `pruneBefore`, also drops every row of
   * windows that ended before it.
   */
  exchange(instance: string, mine: readonly RateCount[], pruneBefore?: number): Promise<readonly RateCount[]>;
}

export interface SharedRateLimiterOptions {
  /** Points a key may spend in one window. */
  readonly points: number;
  /** The window, in seconds. */
  readonly duration: number;
  /** Sets this policy's keys apart from other policies' in the shared table. */
  readonly keyPrefix: string;
  /** Counts in its place while the database does not answer. */
  readonly insuranceLimiter: RateLimiterAbstract;
}

/**
 * A member of a JSON object built in SQL: its key, its value expression, and
 * what the value is. By default a plain SQL value (text, number, null, or a
 * `jsonBoolean` / `jsonFloat`); `json` for a JSON column's value
 * (`jsonValue`: it may be an object or an array); `timestamp` for a
 * timestamp column as it is stored, which the dialect writes as an
 * ISO-8601 UTC string with milliseconds (as `jsonTimestamp` does, but it
 * may spell the string's quotes more cheaply); `embedded` for JSON text
 * built by a nested subquery, which the object takes as it is.
 *
 * Every dialect builds JSON as text, spliced together and never parsed
 * again, so a nested object or array is just its subquery, and the root's
 * JSON is the text the driver returns.
 */
export type JsonMember = readonly [key: string, value: string, kind?: 'json' | 'timestamp' | 'embedded'];

/**
 * A page of records to be written as a JSON array of objects, one object a
 * row, in the page's order.
 */
export interface JsonList {
  /** Each object's members (as `jsonObject` takes them). */
  readonly members: readonly JsonMember[];
  /**
   * The page's statement, selecting first the given expression (the
   * dialect's JSON for one row) as `j`.
   */
  readonly rows: (element: string) => string;
  /** An alias for the page as a derived table. */
  readonly derived: string;
  /** The order to put the page's rows in, on `derived`'s columns; '' to keep the page's own (the page then selects `j` alone). */
  readonly order: string;
}

/**
 * The small set of spellings in which the two SQL dialects differ. The
 * compiler is written once against these hooks (as Kysely's are).
 */
export interface SqlCompilerHooks {
  /** Placeholder for the n-th (0-based) parameter: `+?` (see sqliteHooks) or `$1`. */
  placeholder(index: number): string;
  quoteIdent(name: string): string;
  /** A JSON object from its members, in order. */
  jsonObject(members: readonly JsonMember[]): string;
  /** A page of objects as a JSON array, as text: `[]` for no rows (see `JsonList`). */
  jsonArray(list: JsonList): string;
  /** A boolean column rendered as JSON true/false/null. */
  jsonBoolean(expr: string): string;
  /** A timestamp column as ISO-8601 UTC text with milliseconds (a cursor's value; an object's member is a `timestamp` member). */
  jsonTimestamp(expr: string): string;
  /** A float rendered as the same JSON number text on every dialect (`10`, not `10.0`). */
  jsonFloat(expr: string): string;
  /** A JSON column rendered as a JSON value. */
  jsonValue(expr: string): string;
  /** Case-sensitive substring / prefix match with the parameter as a literal. */
  contains(column: string, param: string): string;
  /**
   * `expr` with A–Z folded to a–z and nothing else, the same on both
   * databases (SQLite's `lower` folds ASCII only; PostgreSQL's does so under
   * the "C" collation): how account identifiers are compared and indexed.
   */
  foldCase(expr: string): string;
  startsWith(column: string, param: string): string;
  /** Uppercase hex of the JSON array text of the values: a keyset cursor built in SQL (see plan/cursor.ts). */
  cursorHex(values: readonly string[]): string;
  /** String concatenation. */
  concat(parts: readonly string[]): string;
  /**
   * A subquery of one `id` column holding the strings of a JSON array bound
   * at `param`: a set of ids of any size in one parameter (a delete's
   * cascade), where an IN list would make a new statement text per size.
   */
  idList(param: string): string;
  /**
   * The terms a record id orders by: shorter ids first, then ids of one
   * length as text, so the demo's `1, 2, …, 10` come in that order and
   * generated ids (all 26 characters) keep their time order. Indexes ending
   * with an id list the same terms (migrate/desired-schema.ts), and a keyset
   * bound compares them as one row value, which both databases seek in such
   * an index. `expr` gives the id (a column, or a parameter) and is called
   * once per use, in text order: SQLite's placeholders are positional.
   */
  idOrder(expr: () => string): readonly string[];
  /**
   * A condition (always true) for the WHERE of a scan that may visit many
   * rows (a filter, a sort, a filtered count) over the table at `alias`,
   * where the driver cannot cancel a statement from outside it: it stops
   * the statement once the time budget is spent. PostgreSQL has
   * `statement_timeout` and needs none.
   */
  scanGuard?(alias: string): string;
  /** The column type for a model scalar. */
  columnType(scalar: 'ID' | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON'): string;
}
