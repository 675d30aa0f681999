import type { Database } from './dialect.js';
import { DEPRECATION_USES_TABLE, DEPRECATIONS_TABLE } from './migrate/desired-schema.js';

/** Uses of one deprecated thing by one client, over some span of time (ms since the epoch). */
export interface DeprecationUseCount {
  readonly coordinate: string;
  /** The name the client gave (`X-Client-Name`), or `unknown`. */
  readonly client: string;
  /** How it called: `ip` (anonymous), `key` (API key), `account`, `admin`, `server`. */
  readonly caller: string;
  readonly uses: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
}

const COLUMNS = ['coordinate', 'client', 'caller', 'uses', 'first_seen', 'last_seen'] as const;

/**
 * Adds a batch of counts to the table in one statement: several instances
 * flushing the same row add up (`uses + excluded.uses`) rather than
 * overwrite each other, and the first and last times only widen.
 */
export async function addDeprecationUses(db: Database, counts: readonly DeprecationUseCount[]): Promise<void> {
  if (counts.length === 0) return;
  const q = (name: string): string => db.sql.quoteIdent(name);
  const table = q(DEPRECATION_USES_TABLE);
  const params: (string | number)[] = [];
  const rows = counts.map((count) => {
    const slots = [count.coordinate, count.client, count.caller, count.uses, count.firstSeen, count.lastSeen].map((value) => {
      params.push(value);
      return db.sql.placeholder(params.length - 1);
    });
    return `(${slots.join(', ')})`;
  });
  const [uses, first, last] = [q('uses'), q('first_seen'), q('last_seen')];
  const sql =
    `INSERT INTO ${table} (${COLUMNS.map(q).join(', ')}) VALUES ${rows.join(', ')} ` +
    `ON CONFLICT (${q('coordinate')}, ${q('client')}, ${q('caller')}) DO UPDATE SET ` +
    `${uses} = ${table}.${uses} + excluded.${uses}, ` +
    `${first} = CASE WHEN excluded.${first} < ${table}.${first} THEN excluded.${first} ELSE ${table}.${first} END, ` +
    `${last} = CASE WHEN excluded.${last} > ${table}.${last} THEN excluded.${last} ELSE ${table}.${last} END`;
  await db.run(sql, params);
}

interface Row {
  readonly coordinate: string;
  readonly client: string;
  readonly caller: string;
  readonly uses: number | string;
  readonly first_seen: number | string;
  readonly last_seen: number | string;
}

/** Every count kept, for `diglot deprecations`. */
export async function readDeprecationUses(db: Database): Promise<DeprecationUseCount[]> {
  const q = (name: string): string => db.sql.quoteIdent(name);
  const rows = await db.all<Row>(`SELECT ${COLUMNS.map(q).join(', ')} FROM ${q(DEPRECATION_USES_TABLE)} ORDER BY ${q('coordinate')}, ${q('client')}, ${q('caller')}`);
  // PostgreSQL's bigint arrives as text.
  return rows.map((row) => ({
    coordinate: row.coordinate,
    client: row.client,
    caller: row.caller,
    uses: Number(row.uses),
    firstSeen: Number(row.first_seen),
    lastSeen: Number(row.last_seen),
  }));
}

/**
 * When each of `coordinates` was first served as deprecated (ms since the
 * epoch): those not yet recorded are recorded as deprecated `now` (the first
 * instance to start with them wins; the others read its time), in two
 * statements whatever their number.
 */
export async function recordDeprecationDates(db: Database, coordinates: readonly string[], now: number): Promise<Map<string, number>> {
  if (coordinates.length === 0) return new Map();
  const q = (name: string): string => db.sql.quoteIdent(name);
  const table = q(DEPRECATIONS_TABLE);
  const params: (string | number)[] = [];
  const rows = coordinates.map((coordinate) => {
    params.push(coordinate, now);
    return `(${db.sql.placeholder(params.length - 2)}, ${db.sql.placeholder(params.length - 1)})`;
  });
  await db.run(`INSERT INTO ${table} (${q('coordinate')}, ${q('deprecated_at')}) VALUES ${rows.join(', ')} ON CONFLICT (${q('coordinate')}) DO NOTHING`, params);
  const found = await db.all<{ coordinate: string; deprecated_at: number | string }>(
    `SELECT ${q('coordinate')}, ${q('deprecated_at')} FROM ${table} WHERE ${q('coordinate')} IN (${coordinates.map((_, i) => db.sql.placeholder(i)).join(', ')})`,
    coordinates,
  );
  return new Map(found.map((row) => [row.coordinate, Number(row.deprecated_at)]));
}

/** The recorded dates (ms since the epoch) of deprecated things, by coordinate, without recording any. */
export async function readDeprecationDates(db: Database): Promise<Map<string, number>> {
  const q = (name: string): string => db.sql.quoteIdent(name);
  const rows = await db.all<{ coordinate: string; deprecated_at: number | string }>(`SELECT ${q('coordinate')}, ${q('deprecated_at')} FROM ${q(DEPRECATIONS_TABLE)}`);
  return new Map(rows.map((row) => [row.coordinate, Number(row.deprecated_at)]));
}
