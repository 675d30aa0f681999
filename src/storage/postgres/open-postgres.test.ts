import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { adminUrl, describePostgres } from '../../../test/support/databases.js';
import { ApiError } from '../../errors/api-error.js';
import type { Database } from '../dialect.js';
import { StorageOpenError } from '../storage-open-error.js';
import { openPostgres } from './open-postgres.js';

async function openError(url: string): Promise<StorageOpenError> {
  const error: unknown = await openPostgres(url, { connectTimeoutMs: 2000 }).then(
    (db) => db.close().then(() => undefined),
    (e: unknown) => e,
  );
  if (!(error instanceof StorageOpenError)) throw new Error(`expected a StorageOpenError, got ${String(error)}`);
  expect(error.message).not.toContain('\n');
  return error;
}

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('openPostgres without a server', () => {
  it('reports a port nobody listens on as UNREACHABLE, in one line, without the password', async () => {
    const error = await openError('postgres://someone:s3cret@127.0.0.1:1/app');
    expect(error.code).toBe('UNREACHABLE');
    expect(error.message).toContain('127.0.0.1:1');
    expect(error.message).not.toContain('s3cret');
    expect(error.stack).toBe(`StorageOpenError: ${error.message}`);
  });

  it('reports a malformed URL as INVALID_TARGET', async () => {
    const error = await openError('postgres://host:notaport/db');
    expect(error.code).toBe('INVALID_TARGET');
  });
});

describePostgres('openPostgres', (ctx) => {
  it('reports a database that does not exist as DATABASE_MISSING', async () => {
    const url = new URL(ctx.url);
    url.pathname = '/diglot_no_such_database';
    const error = await openError(url.toString());
    expect(error.code).toBe('DATABASE_MISSING');
    expect(error.message).toContain('diglot_no_such_database');
  });

  it('names itself diglot and works in UTC', async () => {
    const db = await ctx.open();
    expect(await db.all('SELECT current_setting($1) AS name, current_setting($2) AS zone', ['application_name', 'TimeZone'])).toEqual([
      { name: 'diglot', zone: 'UTC' },
    ]);
  });

  it('reads counts as numbers, json as its text and timestamps as ISO-8601 UTC', async () => {
    const db = await ctx.open();
    const [row] = await db.all(
      `SELECT count(*) AS n, 9007199254740991::bigint AS big, '{"b" : 1, "a":2}'::json AS j, ` +
        `'2024-02-29 13:34:56.789+01'::timestamptz AS t, '2024-01-01 00:00:00+00'::timestamptz AS whole, true AS yes FROM generate_series(1, 3)`,
    );
    expect(row).toEqual({ n: 3, big: 9007199254740991, j: '{"b" : 1, "a":2}', t: '2024-02-29T12:34:56.789Z', whole: '2024-01-01T00:00:00.000Z', yes: true });
  });

  it('prepares a statement once per connection', async () => {
    const db = await ctx.open({ poolSize: 1 });
    const sql = 'SELECT $1::int + 1 AS next';
    for (let i = 0; i < 3; i++) expect(await db.all(sql, [i])).toEqual([{ next: i + 1 }]);
    const [row] = await db.all<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [sql]);
    expect(row?.n).toBe(1);
  });

  it('keeps the connection after a SQL error', async () => {
    const db = await ctx.open({ poolSize: 1 });
    await db.run('CREATE TABLE keep (id text PRIMARY KEY)');
    const pid = async (): Promise<unknown> => (await db.all('SELECT pg_backend_pid() AS pid'))[0];
    const before = await pid();
    await db.run('INSERT INTO keep VALUES ($1)', ['a']);
    await expect(db.run('INSERT INTO keep VALUES ($1)', ['a'])).rejects.toBeInstanceOf(ApiError);
    expect(await pid()).toEqual(before);
  });

  it('commits, rolls back, and lets statements sent from inside the work join the transaction', async () => {
    const db = await ctx.open({ poolSize: 2 });
    await db.run('CREATE TABLE tx (x int)');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO tx VALUES (1)');
        expect(await db.all('SELECT x FROM tx')).toEqual([{ x: 1 }]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.all('SELECT x FROM tx')).toEqual([]);
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO tx VALUES (2)');
    });
    expect(await db.all('SELECT x FROM tx')).toEqual([{ x: 2 }]);
    await expect(db.transaction(() => db.transaction(() => Promise.resolve(1)))).rejects.toThrow(/Nested transaction/);
  });

  it('maps a statement timeout to QUERY_TIMEOUT', async () => {
    const db = await ctx.open({ statementTimeoutMs: 50 });
    const error = await apiError(db.all('SELECT pg_sleep(2)'));
    expect(error.code).toBe('QUERY_TIMEOUT');
    expect(await db.all('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('maps an exhausted pool to DATABASE_UNAVAILABLE', async () => {
    const db = await ctx.open({ poolSize: 1, connectTimeoutMs: 100 });
    let release: () => void = () => undefined;
    const held = db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const error = await apiError(db.all('SELECT 1'));
      expect(error.code).toBe('DATABASE_UNAVAILABLE');
    } finally {
      release();
      await held;
    }
  });

  it('maps a connection lost inside a transaction to DATABASE_UNAVAILABLE, and recovers', async () => {
    const db = await ctx.open({ poolSize: 1 });
    const error = await apiError(
      db.transaction(async (tx) => {
        const [row] = await tx.all<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const admin = new pg.Client({ connectionString: adminUrl() });
        await admin.connect();
        await admin.query('SELECT pg_terminate_backend($1)', [row?.pid]);
        await admin.end();
        await tx.all('SELECT 1');
      }),
    );
    expect(error.code).toBe('DATABASE_UNAVAILABLE');
    expect(await db.all('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('answers or fails as DATABASE_UNAVAILABLE, never hangs, while its connections are killed under load, then serves again and closes', async () => {
    const db = await ctx.open({ poolSize: 4 });
    const database = decodeURIComponent(new URL(ctx.url).pathname.slice(1));
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    const failures: unknown[] = [];
    let answered = 0;
    let killed = 0;
    const read = async (i: number): Promise<void> => {
      try {
        expect(await db.all('SELECT $1::int AS i, pg_sleep(0.002) AS slept', [i])).toEqual([{ i, slept: '' }]);
        answered++;
      } catch (error) {
        failures.push(error);
      }
    };
    try {
      for (let round = 0; round < 10; round++) {
        const reads = Array.from({ length: 20 }, (_, i) => read(round * 20 + i));
        const result = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
        killed += result.rowCount ?? 0;
        await Promise.all(reads);
      }
    } finally {
      await admin.end();
    }
    expect(killed).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(0);
    for (const failure of failures) expect(failure).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    // A connection the last kill left dead in the pool may fail once more; then every read is served.
    const after: boolean[] = [];
    for (let i = 0; i < 20; i++) after.push(await db.all('SELECT 1 AS ok').then(() => true, () => false));
    expect(after.filter((ok) => !ok).length).toBeLessThanOrEqual(4);
    expect(after.slice(-10)).toEqual(Array(10).fill(true));
    // Nothing left waiting on a connection that will never answer.
    await db.close();
  });

  it('survives the server killing an idle connection, and logs it', async () => {
    const warnings: string[] = [];
    const db: Database = await openPostgres(ctx.url, { poolSize: 1, logger: { warn: (_fields, message) => warnings.push(message) } });
    try {
      const [row] = await db.all<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const admin = new pg.Client({ connectionString: adminUrl() });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [row?.pid]);
      await admin.end();
      while (warnings.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await db.all('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    } finally {
      await db.close();
    }
  });
});
