// Opens the database a hand-written peer reads: a SQLite file with the same
// settings Diglot uses (WAL, synchronous=NORMAL, foreign keys), or a pg pool
// of the same size as Diglot's (10).

import Database from 'better-sqlite3';
import pg from 'pg';
import { pgData, sqliteData } from './hand-data.mjs';

/** `batched`: on SQLite, the GraphQL loaders answer all parents with one statement (on PostgreSQL they always do). */
export function openData(target, { batched = false } = {}) {
  if (/^postgres(?:ql)?:\/\//.test(target)) {
    const pool = new pg.Pool({ connectionString: target, max: 10, idleTimeoutMillis: 120_000 });
    return { data: pgData(pool), close: () => pool.end() };
  }
  const db = new Database(target, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return { data: sqliteData(db, { batched }), close: async () => db.close() };
}

/** Stops the server and the database on SIGTERM/SIGINT. */
export function closeOnSignal(app, close) {
  const stop = () => {
    void app
      .close()
      .then(close)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
