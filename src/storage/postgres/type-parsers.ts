import pg from 'pg';

/**
 * How this driver reads PostgreSQL's text values, set per pool (pg's
 * `types` option) rather than on pg's global parser table, so another pg
 * user in the same process is unaffected. The aim is rows shaped like
 * SQLite's: counts as numbers, JSON as the text the database built,
 * timestamps as ISO-8601 UTC text with milliseconds.
 */

const { INT8, JSON: JSON_OID, JSONB: JSONB_OID, TIMESTAMP, TIMESTAMPTZ } = pg.types.builtins;

const identity = (value: string): string => value;

/** `count(*)` and bigint columns: numbers (exact below 2^53, which change clocks and counts stay under). */
const parseInt8 = (value: string): number => Number(value);

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];

const builtinTimestamp = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => unknown;

/**
 * With the session in UTC, PostgreSQL writes `2024-01-02 03:04:05.678+00`;
 * that common case is rewritten directly, anything else (other zones,
 * microseconds of other lengths, BC, infinity) goes through pg's parser.
 */
function parseTimestamp(value: string): string {
  const match = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(?:\+00)?$/.exec(value);
  if (match !== null) return `${match[1] ?? ''}T${match[2] ?? ''}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  const parsed = builtinTimestamp(value);
  return parsed instanceof Date && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : value;
}

export const typeParsers = {
  getTypeParser(oid: TypeId, format?: 'text' | 'binary'): (value: string) => unknown {
    switch (oid) {
      case INT8:
        return parseInt8;
      case JSON_OID:
      case JSONB_OID:
        return identity;
      case TIMESTAMP:
      case TIMESTAMPTZ:
        return parseTimestamp;
      default:
        return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
    }
  },
};
