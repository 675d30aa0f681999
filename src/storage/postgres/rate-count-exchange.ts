import type pg from 'pg';
import type { RateCount, RateCountExchange } from '../dialect.js';
import { SYSTEM_PREFIX } from '../migrate/desired-schema.js';

/** A system table, so migrations leave it alone; unlogged: counts of a minute's window are not worth a WAL record, and a crash may lose them. */
const TABLE = `${SYSTEM_PREFIX}rate_counts`;

const CREATE = `CREATE UNLOGGED TABLE IF NOT EXISTS ${TABLE} (
  key text NOT NULL,
  window_end bigint NOT NULL,
  instance text NOT NULL,
  points bigint NOT NULL,
  PRIMARY KEY (key, window_end, instance)
)`;

/**
 * One statement: this instance's totals upserted (a total never goes down,
 * so a batch sent twice or out of order changes nothing), expired windows
 * dropped when asked, and the other instances' totals for the same keys.
 * The final SELECT sees the table as it was before the upsert: the
 * instance's own rows are left out anyway.
 */
const EXCHANGE = `WITH mine AS (
  SELECT * FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS m(key, window_end, points)
), written AS (
  INSERT INTO ${TABLE} AS c (key, window_end, instance, points)
  SELECT key, window_end, $1, points FROM mine
  ON CONFLICT (key, window_end, instance) DO UPDATE SET points = excluded.points WHERE c.points < excluded.points
), pruned AS (
  DELETE FROM ${TABLE} WHERE $5::bigint IS NOT NULL AND window_end < $5::bigint
)
SELECT c.key, c.window_end::float8 AS window_end, sum(c.points)::float8 AS points
FROM ${TABLE} c JOIN mine m ON m.key = c.key AND m.window_end = c.window_end
WHERE c.instance <> $1
GROUP BY c.key, c.window_end`;

/** Codes PostgreSQL answers when two processes create the same table at once. */
const CREATED_ELSEWHERE = new Set(['42P07', '23505']);

export function createRateCountExchange(pool: pg.Pool): RateCountExchange {
  return {
    prepare: async () => {
      try {
        await pool.query(CREATE);
      } catch (error) {
        if (!CREATED_ELSEWHERE.has(String((error as { code?: unknown }).code))) throw error;
      }
    },
    exchange: async (instance, mine, pruneBefore) => {
      const values = [instance, mine.map((count) => count.key), mine.map((count) => count.windowEnd), mine.map((count) => count.points), pruneBefore ?? null];
      // Prepared once per connection: it runs every interval for as long as the process serves.
      const result = await pool.query<{ key: string; window_end: number; points: number }>({ name: 'diglot_rate_counts', text: EXCHANGE, values });
      return result.rows.map((row): RateCount => ({ key: row.key, windowEnd: row.window_end, points: row.points }));
    },
  };
}
