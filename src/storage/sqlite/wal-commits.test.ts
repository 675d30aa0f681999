import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../dialect.js';
import { openSqlite } from './open-sqlite.js';
import { watchCommits, type CommitWatch } from './wal-commits.js';

let folder: string;
const cleanup: (() => unknown)[] = [];

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'diglot-wal-'));
});
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

let fileNumber = 0;
function connection(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  cleanup.push(() => db.close());
  return db;
}

function watched(path: string): CommitWatch {
  const watch = watchCommits(path);
  if (watch === undefined) throw new Error(`no -shm file beside ${path}`);
  return watch;
}

/** A commit from another process, through its own copy of SQLite. */
function commitFromAnotherProcess(path: string, sql: string): void {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `const D = require(${JSON.stringify(driver)}); const db = new D(${JSON.stringify(path)}); db.exec(${JSON.stringify(sql)}); db.close();`;
  execFileSync(process.execPath, ['-e', script], { stdio: 'pipe' });
}

describe('commits seen in the WAL-index header', () => {
  const fresh = (): { path: string; db: BetterSqlite3.Database } => {
    const path = join(folder, `w${++fileNumber}.db`);
    const db = connection(path);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    return { path, db };
  };

  it('stays put while nothing is committed, whatever is read', () => {
    const { path, db } = fresh();
    const watch = watched(path);
    const start = watch.read();
    db.prepare('SELECT count(*) FROM t').get();
    connection(path).prepare('SELECT * FROM t').all();
    expect(watch.read()).toBe(start);
    expect(watch.read()).toBe(start);
  });

  it('moves for a commit by the same connection, another connection and another process', () => {
    const { path, db } = fresh();
    const watch = watched(path);
    let last = watch.read();
    const moved = (): boolean => {
      const now = watch.read();
      const changed = now !== last;
      last = now;
      return changed;
    };
    db.prepare('INSERT INTO t (v) VALUES (?)').run('same connection');
    expect(moved()).toBe(true);
    connection(path).prepare('INSERT INTO t (v) VALUES (?)').run('other connection');
    expect(moved()).toBe(true);
    commitFromAnotherProcess(path, "INSERT INTO t (v) VALUES ('other process')");
    expect(moved()).toBe(true);
    expect(moved()).toBe(false);
    // A rolled-back transaction committed nothing.
    db.exec("BEGIN; INSERT INTO t (v) VALUES ('undone'); ROLLBACK");
    expect(moved()).toBe(false);
  });

  it('moves after a checkpoint restarts the log, too', () => {
    const { path, db } = fresh();
    const watch = watched(path);
    db.prepare('INSERT INTO t (v) VALUES (?)').run('before');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = watch.read();
    commitFromAnotherProcess(path, "INSERT INTO t (v) VALUES ('after the restart')");
    expect(watch.read()).not.toBe(before);
  });

  it('finds the -shm file beside the real database when opened through a symbolic link', () => {
    const { path } = fresh();
    const link = join(folder, `link-to-${basename(path)}`);
    symlinkSync(path, link);
    // A leftover beside the link that SQLite never writes to: watching it would miss every commit.
    writeFileSync(`${link}-shm`, Buffer.alloc(32_768));
    const watch = watched(link);
    const before = watch.read();
    commitFromAnotherProcess(path, "INSERT INTO t (v) VALUES ('through the real path')");
    expect(watch.read()).not.toBe(before);
  });

  it.runIf(existsSync('/proc/self/fd'))('opens one descriptor per -shm file, however often it is watched, and never closes it', () => {
    const { path } = fresh();
    watched(path);
    const open = readdirSync('/proc/self/fd').length;
    const again = watched(path);
    expect(readdirSync('/proc/self/fd').length).toBe(open);
    const before = again.read();
    commitFromAnotherProcess(path, "INSERT INTO t (v) VALUES ('seen by the second watch')");
    expect(again.read()).not.toBe(before);
  });

  it('is not offered without a -shm file (not WAL mode, or no such database)', () => {
    const path = join(folder, 'rollback-journal.db');
    const db = new BetterSqlite3(path);
    cleanup.push(() => db.close());
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    expect(watchCommits(path)).toBeUndefined();
    expect(watchCommits(join(folder, 'missing.db'))).toBeUndefined();
  });
});

describe('the SQLite driver’s data version', () => {
  it('changes when another process commits, so a revalidation never trusts clocks it has not re-read', async () => {
    const file = join(folder, 'driver.db');
    const db: Database = await openSqlite(file);
    cleanup.push(() => db.close());
    await db.run('CREATE TABLE t (id INTEGER PRIMARY KEY)');
    const version = db.dataVersion;
    if (version === undefined) throw new Error('the SQLite driver has no dataVersion');
    const before = await version();
    expect(await version()).toBe(before);
    commitFromAnotherProcess(file, 'INSERT INTO t DEFAULT VALUES');
    expect(await version()).not.toBe(before);
  });
});
