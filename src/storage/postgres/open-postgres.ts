import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Model } from '../../schema/model.js';
import type { Database, RateCountExchange, SharedRateLimiterOptions, SqlRunner, SqlValue } from '../dialect.js';
import { createErrorLookup, type ErrorLookup } from '../map-db-error.js';
import type { SchemaDialect } from '../migrate/schema-spec.js';
import { redactUrl, StorageOpenError } from '../storage-open-error.js';
import { isConnectionFailure, mapPostgresError } from './map-postgres-error.js';
import { postgresHooks } from './postgres-hooks.js';
import { estimatePostgresRows } from './estimate-rows.js';
import { createPostgresSchema } from './postgres-schema.js';
import { typeParsers } from './type-parsers.js';
import { WriterLease } from './writer-lease.js';
import { ChangeChannel } from './change-channel.js';
import { createPostgresRateLimiter } from './postgres-rate-limiter.js';
import { createRateCountExchange } from './rate-count-exchange.js';

/** Where the driver reports what no caller is waiting for (an idle connection dying). pino's logger fits. */
export interface StorageLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface PostgresOptions {
  /** Lets errors name model fields (`User.email`) instead of columns. */
  readonly model?: Model;
  /** Connections in the pool. Default 10. */
  readonly poolSize?: number;
  /** Server-side limit per statement, in ms (0: none): past it, QUERY_TIMEOUT. Default 5000. */
  readonly statementTimeoutMs?: number;
  /** How long to wait for a connection (new, or free in the pool), in ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Idle connections are closed after this many ms. Default 30000. */
  readonly idleTimeoutMs?: number;
  readonly logger?: StorageLogger;
}

const NO_PARAMS: readonly SqlValue[] = Object.freeze([]);

/** Statements worth preparing by name: DDL and session commands run once. */
const PREPARABLE = /^\s*(?:select|with|insert|update|delete|values)\b/i;

/** Names of prepared statements kept per SQL text; cleared when full (it only saves a hash). */
const NAME_CACHE_LIMIT = 5000;

/** Arbitrary fixed key of the advisory lock a migration holds, on a session of its own, from before its transaction until its concurrent index builds end. */
const MIGRATION_LOCK_KEY = '7283110596124352513';
/** How long a migrator waiting for the lock sleeps between tries, at most (ms). */
const MIGRATION_LOCK_POLL_MS = 500;

interface TransactionScope {
  readonly owner: PostgresDatabase;
  readonly tx: SqlRunner;
  open: boolean;
}

/** The transaction (if any) the current async call chain runs inside. */
const transactionScope = new AsyncLocalStorage<TransactionScope>();

/**
 * Opens a pool and checks the server answers (`SELECT 1`), so a wrong URL
 * fails at start-up with one line rather than at the first request.
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const shown = redactUrl(url);
  let target: URL;
  try {
    target = new URL(url);
  } catch (error) {
    throw new StorageOpenError('INVALID_TARGET', `${shown} is not a valid PostgreSQL URL.`, { cause: error });
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    application_name: 'diglot',
    statement_timeout: options.statementTimeoutMs ?? 5_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
    // Timestamps are read and written in UTC whatever the server's zone, and
    // a backslash in a string literal is itself whatever the server's
    // setting (the compiled SQL writes JSON's quotes in `to_char` formats as `\"`).
    options: '-c TimeZone=UTC -c standard_conforming_strings=on',
    types: typeParsers,
  });
  // Without these listeners a connection dying (server restart, network)
  // would be an unhandled 'error' event and end the process. The failure
  // still reaches whoever was using the connection, as a rejected query.
  pool.on('error', (error) => {
    options.logger?.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool replaces it');
  });
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw openError(target, shown, error, options.connectTimeoutMs ?? 5_000);
  }
  const lease = new WriterLease(url, (sql, params) => pool.query(sql, [...params]), {
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    logger: options.logger,
  });
  // Announced before serving: a holder elsewhere lets the lease go before this process writes.
  await lease.ready();
  const changes = new ChangeChannel(url, (sql, params) => pool.query(sql, [...params]), {
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    logger: options.logger,
    alone: () => lease.sole,
  });
  return new PostgresDatabase(pool, lease, changes, options);
}

function openError(target: URL, shown: string, error: unknown, timeoutMs: number): StorageOpenError {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const where = `${target.hostname}:${target.port === '' ? '5432' : target.port}`;
  const database = decodeURIComponent(target.pathname.replace(/^\//, '')) || target.username || 'postgres';
  if (code === '28P01' || code === '28000') {
    return new StorageOpenError('AUTH_FAILED', `PostgreSQL at ${where} refused the login for ${shown}: ${message}.`, { cause: error });
  }
  if (code === '3D000') {
    return new StorageOpenError('DATABASE_MISSING', `PostgreSQL at ${where} has no database "${database}" (create it: createdb ${database}).`, { cause: error });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StorageOpenError('UNREACHABLE', `Cannot reach PostgreSQL at ${shown}: host ${target.hostname} not found.`, { cause: error });
  }
  if (code === 'ECONNREFUSED') {
    return new StorageOpenError('UNREACHABLE', `Cannot reach PostgreSQL at ${shown}: connection refused at ${where} (is the server running?).`, { cause: error });
  }
  if (/timeout/i.test(message)) {
    return new StorageOpenError('UNREACHABLE', `Cannot reach PostgreSQL at ${shown}: no answer within ${timeoutMs} ms.`, { cause: error });
  }
  return new StorageOpenError('UNREACHABLE', `Cannot use PostgreSQL at ${shown}: ${message.split('\n')[0] ?? message}.`, { cause: error });
}

/**
 * A pg pool behind the Database contract. Statements with parameters (and
 * other data statements) are prepared by name, the name a hash of the SQL,
 * so each connection parses and plans a statement once. Connections return
 * to the pool after SQL errors (a constraint violation leaves them sound);
 * only broken ones are discarded.
 */
class PostgresDatabase implements Database {
  readonly dialect = 'postgres' as const;
  readonly sql = postgresHooks;
  readonly supports = Object.freeze({ aggregateFilter: true, transactionalDdl: true, concurrentWrites: true, writableCte: true, rowLocks: true });
  readonly schema: SchemaDialect;
  readonly rateCounts: RateCountExchange;

  readonly #pool: pg.Pool;
  readonly #lease: WriterLease;
  readonly #changes: ChangeChannel;
  #errors: ErrorLookup;
  readonly #names = new Map<string, string>();
  #count = 0;

  constructor(pool: pg.Pool, lease: WriterLease, changes: ChangeChannel, options: PostgresOptions) {
    this.#pool = pool;
    this.#lease = lease;
    this.#changes = changes;
    this.rateCounts = createRateCountExchange(pool);
    this.#errors = createErrorLookup(options.model);
    this.schema = createPostgresSchema(
      (work) =>
        this.transaction(async (tx) => {
          // DDL on a big table may take longer than a request may.
          await tx.run('SET LOCAL statement_timeout = 0');
          return work(tx);
        }),
      (work) => this.#migrationSession(work),
    );
  }

  useModel(model: Model): void {
    this.#errors = createErrorLookup(model);
  }

  get statementCount(): number {
    return this.#count;
  }

  readonly dataVersion = (): Promise<number> => Promise.resolve(this.#lease.dataVersion());

  /** The lease may send its own statement (a NOTIFY through the pool), which fails like any other during an outage. */
  readonly clockWrite = <T>(work: (guard: string | undefined) => Promise<T>): Promise<T> =>
    this.#lease.clockWrite(work).catch((error: unknown) => {
      throw this.#map(error);
    });

  readonly announceChanges = (tables: readonly string[]): void => this.#changes.announce(tables);

  readonly watchChanges = (listener: (tables: readonly string[] | undefined) => void): (() => void) => this.#changes.watch(listener);

  async all<Row = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> {
    const scope = this.#scope();
    if (scope !== undefined) return scope.tx.all<Row>(sql, params);
    const result = await this.#withClient((client) => this.#send(client, sql, params));
    return result.rows as Row[];
  }

  async run(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<{ readonly changes: number }> {
    const scope = this.#scope();
    if (scope !== undefined) return scope.tx.run(sql, params);
    const result = await this.#withClient((client) => this.#send(client, sql, params));
    return { changes: result.rowCount ?? 0 };
  }

  /**
   * One connection outside any transaction, holding the migration lock and
   * without a statement timeout, for the whole migration: one migrator at a
   * time, and statements PostgreSQL refuses inside a transaction (CREATE
   * INDEX CONCURRENTLY) run on it after the transaction. The lock is tried,
   * not waited for in a query: a query blocked on it would hold a snapshot,
   * and a concurrent index build waits for every older snapshot to end, so
   * the two migrators would deadlock.
   */
  async #migrationSession<T>(work: (session: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    let broken: Error | undefined;
    try {
      await client.query('SET statement_timeout = 0');
      for (let wait = 20; ; wait = Math.min(wait * 2, MIGRATION_LOCK_POLL_MS)) {
        const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${MIGRATION_LOCK_KEY}) AS locked`);
        if (rows[0]?.locked === true) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        return await work({
          all: async <Row = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> =>
            (await client.query(sql, [...params])).rows as Row[],
          run: async (sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<{ readonly changes: number }> => ({
            changes: (await client.query(sql, [...params])).rowCount ?? 0,
          }),
        });
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
        await client.query('RESET statement_timeout');
      }
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      throw this.#map(error);
    } finally {
      client.release(broken);
    }
  }

  /** BEGIN … COMMIT on one pooled connection. A nested call is rejected (no savepoints). */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    if (this.#scope() !== undefined) throw new Error('Nested transaction: use the runner the outer transaction passed to its work.');
    const client = await this.#connect();
    let broken: Error | undefined;
    const scope: TransactionScope = {
      owner: this,
      open: true,
      tx: {
        all: async <Row = Record<string, unknown>>(sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<Row[]> =>
          (await this.#inTransaction(scope, client, sql, params)).rows as Row[],
        run: async (sql: string, params: readonly SqlValue[] = NO_PARAMS): Promise<{ readonly changes: number }> => ({
          changes: (await this.#inTransaction(scope, client, sql, params)).rowCount ?? 0,
        }),
      },
    };
    try {
      await client.query('BEGIN');
      const result = await transactionScope.run(scope, () => work(scope.tx));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw this.#map(error);
    } finally {
      scope.open = false;
      client.release(broken);
    }
  }

  readonly sharedRateLimiter = (options: SharedRateLimiterOptions): ReturnType<typeof createPostgresRateLimiter> =>
    createPostgresRateLimiter(this.#pool, options);

  /** On the change channel's connection: one listening connection per process, reconnected after a break. */
  readonly listen = async (channel: string, onMessage: (payload: string | undefined) => void): Promise<() => Promise<void>> => {
    const { stop, ready } = this.#changes.listen(channel, onMessage);
    await ready;
    return () => {
      stop();
      return Promise.resolve();
    };
  };

  readonly notify = async (channel: string, payload: string): Promise<void> => {
    await this.run('SELECT pg_notify($1, $2)', [channel, payload]);
  };

  async ping(): Promise<void> {
    await this.#withClient((client) => client.query('SELECT 1'));
  }

  estimateRows(tables: readonly string[]): Promise<Map<string, number>> {
    return estimatePostgresRows(this, tables);
  }

  async close(): Promise<void> {
    // The pool first: a write still running as the lease's holder finishes while the lease is held.
    await this.#changes.close();
    await this.#pool.end();
    await this.#lease.close();
  }

  #scope(): TransactionScope | undefined {
    const scope = transactionScope.getStore();
    return scope !== undefined && scope.owner === this && scope.open ? scope : undefined;
  }

  async #inTransaction(scope: TransactionScope, client: pg.PoolClient, sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    if (!scope.open) throw new Error('This transaction has already ended.');
    try {
      return await this.#send(client, sql, params);
    } catch (error) {
      throw this.#map(error);
    }
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw this.#map(error);
    }
  }

  /**
   * Not pool.query(): it discards the connection after *any* error, so every
   * unique violation would cost a reconnect and the prepared statements.
   */
  async #withClient(use: (client: pg.PoolClient) => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    const client = await this.#connect();
    let failure: unknown;
    try {
      return await use(client);
    } catch (error) {
      failure = error;
      throw this.#map(error);
    } finally {
      client.release(failure !== undefined && isConnectionFailure(failure) ? asError(failure) : undefined);
    }
  }

  #send(client: pg.PoolClient, sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    this.#count++;
    // pg reads `values` and never writes it.
    const values = params as SqlValue[];
    if (params.length === 0 && !PREPARABLE.test(sql)) return client.query(sql);
    return client.query({ name: this.#name(sql), text: sql, values });
  }

  #name(sql: string): string {
    let name = this.#names.get(sql);
    if (name === undefined) {
      if (this.#names.size >= NAME_CACHE_LIMIT) this.#names.clear();
      name = `d_${createHash('sha1').update(sql).digest('base64url')}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  #map(error: unknown): Error {
    return mapPostgresError(error, this.#errors);
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
