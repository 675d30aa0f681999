import { schemaDeprecations, type DeprecatedUse } from '../plan/deprecated-use.js';
import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { readDeprecationDates, readDeprecationUses } from '../storage/deprecation-uses.js';

/** One client's uses of a deprecated thing. */
export interface ClientUses {
  readonly client: string;
  /** How it called: `ip` (anonymous), `key` (API key), `account`, `admin`. */
  readonly caller: string;
  readonly uses: number;
  /** ISO 8601. */
  readonly firstSeen: string;
  readonly lastSeen: string;
}

/** What an owner needs to decide whether a deprecated thing can go. */
export interface DeprecationReportRow {
  readonly kind: DeprecatedUse['kind'];
  readonly coordinate: string;
  readonly reason: string;
  /** ISO date: the schema's `since`, else when the database first served it as deprecated; null when neither is known. */
  readonly since: string | null;
  readonly sunset: string | null;
  readonly uses: number;
  /** ISO 8601, or null when never used since it was deprecated. */
  readonly lastSeen: string | null;
  /** True when nobody used it in the last `quietDays` days. */
  readonly quiet: boolean;
  /** Most uses first. */
  readonly clients: readonly ClientUses[];
}

/**
 * Each deprecated thing of the schema with its counted uses, ordered so what
 * is safe to remove comes first: never used, then the longest unused, then
 * by name. Counts a running server has not flushed yet (a few seconds' worth)
 * are not in the database.
 */
export async function deprecationReport(model: Model, db: Database, quietDays: number, now: number = Date.now()): Promise<DeprecationReportRow[]> {
  const [counts, dates] = await Promise.all([readDeprecationUses(db), readDeprecationDates(db)]);
  const quietSince = now - quietDays * 86_400_000;
  const rows = schemaDeprecations(model).map((use): DeprecationReportRow => {
    const mine = counts.filter((count) => count.coordinate === use.coordinate).sort((a, b) => b.uses - a.uses || a.client.localeCompare(b.client));
    const uses = mine.reduce((total, count) => total + count.uses, 0);
    const last = mine.reduce((latest, count) => Math.max(latest, count.lastSeen), 0);
    const recorded = dates.get(use.coordinate);
    return {
      kind: use.kind,
      coordinate: use.coordinate,
      reason: use.reason,
      since: use.since ?? (recorded === undefined ? null : new Date(recorded).toISOString().slice(0, 10)),
      sunset: use.sunset ?? null,
      uses,
      lastSeen: last === 0 ? null : new Date(last).toISOString(),
      quiet: last < quietSince,
      clients: mine.map((count) => ({
        client: count.client,
        caller: count.caller,
        uses: count.uses,
        firstSeen: new Date(count.firstSeen).toISOString(),
        lastSeen: new Date(count.lastSeen).toISOString(),
      })),
    };
  });
  const lastOf = (row: DeprecationReportRow): string => row.lastSeen ?? '';
  return rows.sort((a, b) => lastOf(a).localeCompare(lastOf(b)) || a.coordinate.localeCompare(b.coordinate));
}
