/**
 * One loop for "runs against every dialect": `describeEachDialect(name, fn)`
 * registers the body once for SQLite (a temporary file) and once for
 * PostgreSQL (a throwaway database created for the block and dropped after
 * it), so every test that reaches SQL proves itself on both.
 *
 * PostgreSQL runs when test/support/global-setup.ts found the server named
 * by DIGLOT_TEST_PG (default postgres://postgres@127.0.0.1:5432/test); the
 * throwaway databases are created through that connection.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Database } from '../../src/storage/dialect.js';
import { openDatabase, type OpenDatabaseOptions } from '../../src/storage/open-database.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DialectContext {
  readonly dialect: Dialect;
  /** The block's database: a SQLite file path or a postgres:// URL. */
  readonly url: string;
  /** A new connection (pool) to the block's database; everything opened is closed after the block. */
  open(options?: OpenDatabaseOptions): Promise<Database>;
  /** Closes everything opened so far and empties the database, for a test that needs to start from nothing. */
  reset(): Promise<void>;
}

const DEFAULT_TEST_PG = 'postgres://postgres@127.0.0.1:5432/test';

export function postgresAvailable(): boolean {
  return process.env['DIGLOT_PG_AVAILABLE'] === '1';
}

export function adminUrl(): string {
  return process.env['DIGLOT_TEST_PG'] ?? DEFAULT_TEST_PG;
}

export function describeEachDialect(name: string, fn: (ctx: DialectContext) => void): void {
  describeSqlite(`${name} [sqlite]`, fn);
  describePostgres(`${name} [postgres]`, fn);
}

/** A block on its own temporary SQLite file. */
export function describeSqlite(name: string, fn: (ctx: DialectContext) => void): void {
  describe(name, () => {
    const folder = join(tmpdir(), `diglot-t-${uniqueSuffix()}`);
    const file = join(folder, 'test.db');
    const ctx = trackedContext('sqlite', file, () => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      return Promise.resolve();
    });
    beforeAll(() => {
      mkdirSync(folder, { recursive: true });
    });
    afterAll(async () => {
      await ctx.closeAll();
      rmSync(folder, { recursive: true, force: true });
    });
    fn(ctx);
  });
}

/** A block on its own throwaway PostgreSQL database; skipped when the server is not reachable. */
export function describePostgres(name: string, fn: (ctx: DialectContext) => void): void {
  describe.skipIf(!postgresAvailable())(name, () => {
    const database = `diglot_t_${uniqueSuffix()}`;
    const url = new URL(adminUrl());
    url.pathname = `/${database}`;
    const ctx = trackedContext('postgres', url.toString(), () => query(url.toString(), 'DROP SCHEMA public CASCADE; CREATE SCHEMA public'));
    beforeAll(async () => {
      await admin(`CREATE DATABASE "${database}"`);
    });
    afterAll(async () => {
      await ctx.closeAll();
      await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    });
    fn(ctx);
  });
}

/** `<unix seconds>_<random>`: the global setup drops databases whose time is long past. */
function uniqueSuffix(): string {
  return `${Math.floor(Date.now() / 1000)}_${randomBytes(5).toString('hex')}`;
}

function trackedContext(dialect: Dialect, url: string, empty: () => Promise<void>): DialectContext & { closeAll(): Promise<void> } {
  const opened: Database[] = [];
  const closeAll = async (): Promise<void> => {
    // A test may have closed its database already; closing twice is not this helper's concern.
    await Promise.all(opened.splice(0).map((db) => db.close().catch(() => undefined)));
  };
  return {
    dialect,
    url,
    open: async (options) => {
      const db = await openDatabase(url, options);
      opened.push(db);
      return db;
    },
    reset: async () => {
      await closeAll();
      await empty();
    },
    closeAll,
  };
}

function admin(sql: string): Promise<void> {
  return query(adminUrl(), sql);
}

async function query(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
