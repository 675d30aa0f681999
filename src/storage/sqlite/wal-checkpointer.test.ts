import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../dialect.js';
import { openSqlite } from './open-sqlite.js';
import { watchCommits, type CommitWatch } from './wal-commits.js';

let folder: string;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'diglot-checkpoint-'));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

const FRAMES = 50;

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A database with a checkpoint threshold of FRAMES, a table `t`, and a watch on its WAL-index. */
async function openWithTable(file: string): Promise<{ path: string; db: Database; watch: CommitWatch }> {
  const path = join(folder, file);
  const db = await openSqlite(path, { checkpointFrames: FRAMES });
  await db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const watch = watchCommits(path);
  if (watch === undefined) throw new Error('no WAL-index beside the database');
  return { path, db, watch };
}

describe('WAL checkpoints on a worker thread', () => {
  it('copies the WAL into the database file between commits, and the data stays whole', async () => {
    const { path, db, watch } = await openWithTable('copied.db');
    // About two frames a commit: past the threshold, and well short of the
    // main connection's own backstop (four times it), so only the worker can
    // have copied the frames once the commits stop.
    for (let i = 0; i < 60; i++) {
      await db.transaction((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`${String(i).padStart(2, '0')}:${'x'.repeat(3000)}`]));
    }
    await until(() => watch.framesToCheckpoint() < FRAMES, 'the worker to checkpoint');

    const other = new BetterSqlite3(path, { readonly: true });
    try {
      expect(other.prepare('SELECT count(*) AS n, sum(length(v)) AS bytes FROM t').get()).toEqual({ n: 60, bytes: 60 * 3003 });
    } finally {
      other.close();
    }
    await db.close();
    // The worker closed its connection first, so the main one was the last
    // and, closing, copied the rest and removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('leaves the WAL alone below the threshold', async () => {
    const { db, watch } = await openWithTable('small.db');
    for (let i = 0; i < 16; i++) await db.run('INSERT INTO t (v) VALUES (?)', ['x'.repeat(3000)]);
    const pending = watch.framesToCheckpoint();
    expect(pending).toBeGreaterThanOrEqual(16);
    expect(pending).toBeLessThan(FRAMES);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(watch.framesToCheckpoint()).toBe(pending);
    await db.close();
  });
});
