import type { Model } from '../schema/model.js';
import type { Database } from './dialect.js';
import type { StorageLogger } from './postgres/open-postgres.js';

export type { StorageLogger } from './postgres/open-postgres.js';

export interface OpenDatabaseOptions {
  /** Lets errors name model fields (`User.email`) instead of columns. */
  readonly model?: Model;
  readonly logger?: StorageLogger;
  /** PostgreSQL: connections in the pool (default 10). */
  readonly poolSize?: number;
  /** A statement's time budget in ms, 0 for none (default 5000): past it the statement is stopped with QUERY_TIMEOUT. */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL: how long to wait for a connection in ms (default 5000). */
  readonly connectTimeoutMs?: number;
  /** SQLite: how long a write waits for another process's lock in ms (default 5000). */
  readonly busyTimeoutMs?: number;
}

/**
 * `postgres://…` or `postgresql://…` opens PostgreSQL; anything else is a
 * SQLite file path (`:memory:` for a throwaway database). Fails with a
 * StorageOpenError whose message is one printable line.
 *
 * Each driver is loaded only when its database is opened: a server on
 * SQLite never loads pg and its type parsers, nor one on PostgreSQL the
 * native SQLite library.
 */
export async function openDatabase(target: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (/^postgres(?:ql)?:\/\//i.test(target)) {
    const { openPostgres } = await import('./postgres/open-postgres.js');
    return openPostgres(target, {
      model: options.model,
      logger: options.logger,
      poolSize: options.poolSize,
      statementTimeoutMs: options.statementTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
    });
  }
  const { openSqlite } = await import('./sqlite/open-sqlite.js');
  return openSqlite(target, { model: options.model, busyTimeoutMs: options.busyTimeoutMs, statementTimeoutMs: options.statementTimeoutMs });
}
