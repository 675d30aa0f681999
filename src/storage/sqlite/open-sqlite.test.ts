import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../errors/api-error.js';
import type { Database } from '../dialect.js';
import { StorageOpenError } from '../storage-open-error.js';
import { openSqlite } from './open-sqlite.js';

let folder: string;
const opened: Database[] = [];

async function open(name: string, options: Parameters<typeof openSqlite>[1] = {}): Promise<Database> {
  const db = await openSqlite(join(folder, name), options);
  opened.push(db);
  return db;
}

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'diglot-sqlite-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

async function openError(path: string, options: Parameters<typeof openSqlite>[1] = {}): Promise<StorageOpenError> {
  const error: unknown = await openSqlite(path, options).then(
    (db) => db.close().then(() => undefined),
    (e: unknown) => e,
  );
  if (!(error instanceof StorageOpenError)) throw new Error(`expected a StorageOpenError, got ${String(error)}`);
  expect(error.message).not.toContain('\n');
  expect(error.stack).toBe(`StorageOpenError: ${error.message}`);
  return error;
}

/**
 * Commits recorded in a database's WAL file since it was last restarted:
 * frames whose header carries the database size after the commit
 * (https://sqlite.org/fileformat.html §4.1) and the WAL header's salts.
 */
function walCommits(databasePath: string): number {
  const wal = readFileSync(`${databasePath}-wal`);
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.compare(wal, 16, 24, offset + 8, offset + 16) !== 0) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits++;
  }
  return commits;
}

describe('openSqlite', () => {
  it('sets WAL, foreign keys, the busy timeout and synchronous=NORMAL', async () => {
    const db = await open('pragmas.db', { busyTimeoutMs: 1234 });
    const value = async (pragma: string): Promise<unknown> => Object.values((await db.all(`PRAGMA ${pragma}`))[0] ?? {})[0];
    expect(await value('journal_mode')).toBe('wal');
    expect(await value('foreign_keys')).toBe(1);
    expect(await value('busy_timeout')).toBe(1234);
    expect(await value('synchronous')).toBe(1);
    expect(db.dialect).toBe('sqlite');
  });

  it('refuses a file that is not a SQLite database with NOT_A_DATABASE', async () => {
    const path = join(folder, 'notes.txt');
    writeFileSync(path, 'These are my notes, not a database. '.repeat(200));
    const error = await openError(path);
    expect(error.code).toBe('NOT_A_DATABASE');
    expect(error.message).toContain(path);
  });

  it('reports a missing folder as DIRECTORY_MISSING', async () => {
    const error = await openError(join(folder, 'no', 'such', 'dir', 'x.db'));
    expect(error.code).toBe('DIRECTORY_MISSING');
    expect(error.message).toContain(join(folder, 'no', 'such', 'dir'));
  });

  it('reports a directory as CANNOT_OPEN', async () => {
    const error = await openError(folder);
    expect(error.code).toBe('CANNOT_OPEN');
    expect(error.message).toContain('is a directory');
  });

  it('reports a file another connection holds exclusively as LOCKED', async () => {
    const path = join(folder, 'locked.db');
    const holder = new BetterSqlite3(path);
    try {
      holder.exec('CREATE TABLE t (x INTEGER); PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);');
      const error = await openError(path, { busyTimeoutMs: 50 });
      expect(error.code).toBe('LOCKED');
    } finally {
      holder.close();
    }
  });

  it('opens :memory:', async () => {
    const db = await openSqlite(':memory:');
    opened.push(db);
    expect(await db.all('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});

describe('statements', () => {
  it('binds booleans as 0/1 and integers as INTEGER', async () => {
    const db = await open('bind.db');
    await db.run('CREATE TABLE t (b INTEGER, n INTEGER, r REAL) STRICT');
    await db.run('INSERT INTO t VALUES (?, ?, ?)', [true, 3, 2.5]);
    expect(await db.all('SELECT b, n, r, typeof(?) AS ty, ? || \'\' AS txt FROM t', [7, 7])).toEqual([{ b: 1, n: 3, r: 2.5, ty: 'integer', txt: '7' }]);
  });

  it('runs statements that return nothing through all(), and counts statements', async () => {
    const db = await open('count.db');
    const before = db.statementCount;
    expect(await db.all('CREATE TABLE t (x INTEGER) STRICT')).toEqual([]);
    expect(await db.run('INSERT INTO t VALUES (1), (2)')).toEqual({ changes: 2 });
    for (let i = 0; i < 3; i++) await db.all('SELECT x FROM t WHERE x > ?', [i]);
    expect(db.statementCount - before).toBe(5);
  });

  it('keeps working past the statement cache size (least recently used dropped)', async () => {
    const db = await open('cache.db', { statementCacheSize: 3 });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 10; i++) expect(await db.all(`SELECT ${i} AS v`)).toEqual([{ v: i }]);
    }
  });
});

describe('transactions', () => {
  it('commits on success and rolls back on failure', async () => {
    const db = await open('tx.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t VALUES (1)');
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (2)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.all('SELECT x FROM t')).toEqual([{ x: 1 }]);
  });

  it('keeps other callers out until it commits, and lets its own work join in', async () => {
    const db = await open('isolation.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seenInside: unknown[] = [];
    const writer = db.transaction(async (tx) => {
      await tx.run('INSERT INTO t VALUES (1)');
      // Through the database object, not tx: it joins this transaction.
      seenInside.push(...(await db.all('SELECT x FROM t')));
      await gate;
    });
    const outside = db.all('SELECT x FROM t');
    let outsideDone = false;
    void outside.then(() => (outsideDone = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(outsideDone).toBe(false);
    release();
    await writer;
    expect(seenInside).toEqual([{ x: 1 }]);
    expect(await outside).toEqual([{ x: 1 }]);
  });

  it('runs concurrent transactions one after the other', async () => {
    const db = await open('serial.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    await db.run('INSERT INTO t VALUES (0)');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const [row] = await tx.all<{ x: number }>('SELECT x FROM t');
          await new Promise((resolve) => setImmediate(resolve));
          await tx.run('UPDATE t SET x = ?', [(row?.x ?? 0) + 1]);
        }),
      ),
    );
    expect(await db.all('SELECT x FROM t')).toEqual([{ x: 20 }]);
  });

  it('commits transactions that run in the same turn together, and acknowledges each only once it is committed', async () => {
    const db = await open('group.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    const other = new BetterSqlite3(join(folder, 'group.db'), { readonly: true });
    try {
      const count = other.prepare('SELECT count(*) FROM t').pluck();
      const before = walCommits(join(folder, 'group.db'));
      const seenByOther: unknown[] = [];
      await Promise.all(
        [1, 2, 3, 4, 5].map((x) =>
          db
            .transaction(async (tx) => {
              await tx.run('INSERT INTO t VALUES (?)', [x]);
            })
            .then(() => seenByOther.push(count.get())),
        ),
      );
      expect(walCommits(join(folder, 'group.db')) - before).toBe(1);
      expect(seenByOther).toEqual([5, 5, 5, 5, 5]);
    } finally {
      other.close();
    }
  });

  it('rolls back a transaction that fails in a group alone', async () => {
    const db = await open('group-failure.db');
    await db.run('CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT');
    await db.run('INSERT INTO t VALUES (9)');
    const outcomes = await Promise.allSettled([
      db.transaction((tx) => tx.run('INSERT INTO t VALUES (1)')),
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (2)');
        throw new Error('boom');
      }),
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (3)');
        await tx.run('INSERT INTO t VALUES (9)');
      }),
      db.transaction((tx) => tx.run('INSERT INTO t VALUES (4)')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: { message: 'boom' } });
    expect(outcomes[2]).toMatchObject({ reason: { code: 'UNIQUE_VIOLATION' } });
    expect(await db.all('SELECT x FROM t ORDER BY x')).toEqual([{ x: 1 }, { x: 4 }, { x: 9 }]);
  });

  it('commits the open group before any statement outside it', async () => {
    const db = await open('group-read.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    const writes = [1, 2].map((x) => db.transaction((tx) => tx.run('INSERT INTO t VALUES (?)', [x])));
    const read = db.all('SELECT x FROM t ORDER BY x');
    const third = db.transaction((tx) => tx.run('INSERT INTO t VALUES (3)'));
    expect(await read).toEqual([{ x: 1 }, { x: 2 }]);
    await Promise.all([...writes, third]);
    expect(await db.all('SELECT x FROM t ORDER BY x')).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
  });

  it('runs the reads of one turn together at its end, in the order they and the writes were issued', async () => {
    const db = await open('batched-reads.db');
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    const before = db.statementCount;
    const first = db.all('SELECT count(*) AS n FROM t');
    const insert = db.run('INSERT INTO t VALUES (1)');
    const second = db.all('SELECT count(*) AS n FROM t');
    const transaction = db.transaction((tx) => tx.run('INSERT INTO t VALUES (2)'));
    const third = db.all('SELECT count(*) AS n FROM t');
    // Nothing ran yet: the first read waits for the end of the turn, and everything issued after it waits behind it.
    expect(db.statementCount).toBe(before);
    expect(await Promise.all([first, insert, second, transaction, third])).toEqual([[{ n: 0 }], { changes: 1 }, [{ n: 1 }], { changes: 1 }, [{ n: 2 }]]);
  });

  it('rejects a nested transaction', async () => {
    const db = await open('nested.db');
    await expect(db.transaction(() => db.transaction(() => Promise.resolve(1)))).rejects.toThrow(/Nested transaction/);
    expect(await db.all('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  });

  it('maps a write lock held by another connection past the busy timeout to DATABASE_UNAVAILABLE', async () => {
    const db = await open('busy.db', { busyTimeoutMs: 50 });
    await db.run('CREATE TABLE t (x INTEGER) STRICT');
    const other = new BetterSqlite3(join(folder, 'busy.db'));
    try {
      other.exec('BEGIN IMMEDIATE; INSERT INTO t VALUES (1);');
      const error: unknown = await db.run('INSERT INTO t VALUES (2)').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('DATABASE_UNAVAILABLE');
      other.exec('ROLLBACK');
      expect(await db.run('INSERT INTO t VALUES (3)')).toEqual({ changes: 1 });
    } finally {
      other.close();
    }
  });

  it('refuses a runner used after its transaction ended', async () => {
    const db = await open('ended.db');
    const tx = await db.transaction((runner) => Promise.resolve(runner));
    await expect(tx.all('SELECT 1')).rejects.toThrow(/already ended/);
  });

  it('a migration that would leave a row pointing at nothing is rolled back, and one that changes nothing checks nothing', async () => {
    const db = await open('foreign-keys.db');
    const tables = async (): Promise<unknown[]> => (await db.all("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")).map((row) => row['name']);
    await expect(
      db.schema.runMigration(async (tx) => {
        await tx.run('CREATE TABLE parent (id TEXT PRIMARY KEY) STRICT');
        await tx.run('CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parent (id)) STRICT');
        await tx.run("INSERT INTO child VALUES ('c1', 'nobody')");
      }),
    ).rejects.toThrow(/1 row of child pointing at missing parent rows; nothing was changed/);
    expect(await tables()).toEqual([]);

    await db.schema.runMigration(async (tx) => {
      await tx.run('CREATE TABLE parent (id TEXT PRIMARY KEY) STRICT');
      await tx.run('CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parent (id)) STRICT');
    });
    // A dangling row the migrations did not make (written with foreign keys off by another program).
    const other = new BetterSqlite3(join(folder, 'foreign-keys.db'));
    other.pragma('foreign_keys = OFF');
    other.exec("INSERT INTO child VALUES ('c2', 'nobody')");
    other.close();
    // A migration with nothing to do (what every `serve` starts with) neither reads every table nor refuses to start.
    await expect(db.schema.runMigration(async (tx) => tx.all('SELECT count(*) AS n FROM parent'))).resolves.toEqual([{ n: 0 }]);
    // One that changes the schema is checked, and stopped by the row it would carry along.
    await expect(db.schema.runMigration((tx) => tx.run('CREATE TABLE other (id TEXT PRIMARY KEY) STRICT'))).rejects.toThrow(/pointing at missing parent rows/);
    expect(await tables()).toEqual(['child', 'parent']);
  });
});
