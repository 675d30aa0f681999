import type { SqlCompilerHooks, SqlValue } from '../dialect.js';
import { CLOCK_SHARD_MARK, CLOCK_TABLE } from '../migrate/desired-schema.js';

/**
 * The change clocks' SQL (src/engine/change-clock.ts keeps the clocks): the
 * bump a write makes to one clock row, and the read of them all.
 */

/**
 * The bump of one clock row, returning where it left it, carrying `guard`
 * (`Database.clockWrite`) after its `SELECT` list, with its placeholders
 * numbered from `firstParam` (for a write that runs it as part of a
 * statement of its own). The same text for every table: see `clockBumpParams`.
 */
export function compileClockBump(hooks: SqlCompilerHooks, guard: string | undefined, firstParam = 0): string {
  const q = (name: string): string => hooks.quoteIdent(name);
  const p = (i: number): string => hooks.placeholder(firstParam + i);
  const row = guard === undefined ? `VALUES (${p(0)}, ${p(1)}, ${p(2)})` : `SELECT ${p(0)}, ${p(1)}, ${p(2)} ${guard}`;
  return (
    `INSERT INTO ${q(CLOCK_TABLE)} (${q('table_name')}, ${q('version')}, ${q('changed_at')}) ${row} ` +
    `ON CONFLICT (${q('table_name')}) DO UPDATE SET ${q('version')} = ${q(CLOCK_TABLE)}.${q('version')} + 1, ${q('changed_at')} = ${p(3)} ` +
    `RETURNING ${q('table_name')}, ${q('version')}, ${q('changed_at')}`
  );
}

/** `compileClockBump`'s params: the row of `table`'s clock numbered `shard`, `now` being the write's time. */
export function clockBumpParams(table: string, now: string, shard: number): SqlValue[] {
  // A clock starts at a random value, so a database recreated from
  // scratch never hands out a validator an old cache already holds for
  // other data. (Unpredictability is not the point, and migrations start
  // nearly every clock anyway, so Math.random spares the CSPRNG call on
  // each write.)
  return [shard === 0 ? table : `${table}${CLOCK_SHARD_MARK}${shard}`, 1 + Math.floor(Math.random() * 2 ** 40), now, now];
}

/** Every clock row: `table_name`, `version`, `changed_at`. */
export function compileClockRead(hooks: SqlCompilerHooks): string {
  const q = (name: string): string => hooks.quoteIdent(name);
  return `SELECT ${q('table_name')}, ${q('version')}, ${q('changed_at')} FROM ${q(CLOCK_TABLE)}`;
}
