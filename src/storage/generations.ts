import type { Database, SqlRunner } from './dialect.js';
import { EVENT_STATE_TABLE } from './migrate/desired-schema.js';

/** A generation moved by every suspension or end of one (`auth/accounts/suspensions.ts`). */
export const SUSPENSIONS_GENERATION = 'suspensions';
/** A generation moved by every API key revocation (`auth/key-revocations.ts`). */
export const API_KEY_REVOCATIONS_GENERATION = 'api_key_revocations';
/** A generation moved by every change of the webhook endpoints kept in the database (`events/webhook-registry.ts`). */
export const WEBHOOK_ENDPOINTS_GENERATION = 'webhook_endpoints';

const TABLE = `"${EVENT_STATE_TABLE}"`;

/**
 * Named counters (rows of `_diglot_event_state`) that move whenever
 * something is changed that every process must hear of at once: how
 * processes sharing a database with no channel to tell each other (several
 * on one SQLite file) learn of a suspension or a revoked key, and how a
 * publication of events knows the webhook endpoints it routes with are the
 * ones committed. A counter only grows; a missing row reads as 0.
 */
export class GenerationStore {
  readonly #read: string;
  readonly #bump: string;

  constructor(private readonly db: Database) {
    const p = (i: number): string => db.sql.placeholder(i);
    this.#read = `SELECT value FROM ${TABLE} WHERE name = ${p(0)}`;
    this.#bump = `INSERT INTO ${TABLE} (name, value) VALUES (${p(0)}, 1) ON CONFLICT (name) DO UPDATE SET value = ${TABLE}.value + 1`;
  }

  async read(name: string): Promise<number> {
    const [row] = await this.db.all<{ value: number | string }>(this.#read, [name]);
    return row === undefined ? 0 : Number(row.value);
  }

  /** Moves the counter, in `runner`'s transaction when it is one. */
  async bump(name: string, runner: SqlRunner = this.db): Promise<void> {
    await runner.run(this.#bump, [name]);
  }
}
