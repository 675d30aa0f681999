import type { Database, SqlValue } from './dialect.js';
import { GenerationStore, WEBHOOK_ENDPOINTS_GENERATION } from './generations.js';
import { DELIVERIES_TABLE, WEBHOOK_ENDPOINTS_TABLE } from './migrate/desired-schema.js';

/** A webhook endpoint kept in the database (added at run time through the admin API). */
export interface StoredEndpoint {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  /** The filter as sent (`?filter=`'s vocabulary), or undefined for none. */
  readonly filter: unknown;
  /** The signing secret (`whsec_…`): needed to sign, never sent back to anyone. */
  readonly secret: string;
  readonly paused: boolean;
  readonly timeoutMs: number | undefined;
  readonly retryForMs: number | undefined;
  readonly backoffMs: number | undefined;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What an update may change: everything but the name and the times. */
export type EndpointChange = Partial<Omit<StoredEndpoint, 'name' | 'createdAt' | 'updatedAt'>>;

interface Row {
  readonly name: string;
  readonly url: string;
  readonly events: string;
  readonly filter: string | null;
  readonly secret: string;
  readonly paused: number | string | boolean;
  readonly timeout_ms: number | string | null;
  readonly retry_for_ms: number | string | null;
  readonly backoff_ms: number | string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

const COLUMNS = ['name', 'url', 'events', 'filter', 'secret', 'paused', 'timeout_ms', 'retry_for_ms', 'backoff_ms', 'created_at', 'updated_at'] as const;
type Column = (typeof COLUMNS)[number];

/**
 * The table of webhook endpoints added at run time. Read whole (a handful
 * of rows) when a server starts and whenever one changes; written only by
 * the admin API. Each change moves a generation in its transaction, which
 * a publication compares with the one its endpoints were read at.
 */
export class WebhookEndpointStore {
  private readonly table: string;
  private readonly select: string;
  private readonly generations: GenerationStore;

  constructor(private readonly db: Database) {
    this.generations = new GenerationStore(db);
    this.table = this.q(WEBHOOK_ENDPOINTS_TABLE);
    this.select = `SELECT ${COLUMNS.map((column) => this.q(column)).join(', ')} FROM ${this.table}`;
  }

  private q(name: string): string {
    return this.db.sql.quoteIdent(name);
  }

  private p(i: number): string {
    return this.db.sql.placeholder(i);
  }

  /** The generation of the table's content: it moves with every change committed. */
  generation(): Promise<number> {
    return this.generations.read(WEBHOOK_ENDPOINTS_GENERATION);
  }

  /** Every endpoint, by name. */
  async list(): Promise<StoredEndpoint[]> {
    const rows = await this.db.all<Row>(`${this.select} ORDER BY ${this.q('name')}`);
    return rows.map(endpointOf);
  }

  async get(name: string): Promise<StoredEndpoint | undefined> {
    const [row] = await this.db.all<Row>(`${this.select} WHERE ${this.q('name')} = ${this.p(0)}`, [name]);
    return row === undefined ? undefined : endpointOf(row);
  }

  /** Stores a new endpoint; false when its name is taken. */
  async insert(endpoint: StoredEndpoint): Promise<boolean> {
    const values = valuesOf(endpoint);
    return this.db.transaction(async (tx) => {
      const taken = await tx.all(`SELECT 1 AS taken FROM ${this.table} WHERE ${this.q('name')} = ${this.p(0)}`, [endpoint.name]);
      if (taken.length > 0) return false;
      await tx.run(
        `INSERT INTO ${this.table} (${COLUMNS.map((column) => this.q(column)).join(', ')}) VALUES (${COLUMNS.map((_, i) => this.p(i)).join(', ')})`,
        COLUMNS.map((column) => values[column]),
      );
      await this.generations.bump(WEBHOOK_ENDPOINTS_GENERATION, tx);
      return true;
    });
  }

  /** Applies `change` to the endpoint named so; its new state, or undefined when there is none. */
  async update(name: string, change: EndpointChange, at: string): Promise<StoredEndpoint | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<Row>(`${this.select} WHERE ${this.q('name')} = ${this.p(0)}${this.db.supports.rowLocks === true ? ' FOR UPDATE' : ''}`, [name]);
      if (row === undefined) return undefined;
      const next: StoredEndpoint = { ...endpointOf(row), ...change, name, updatedAt: at };
      const values = valuesOf(next);
      const changed = COLUMNS.filter((column) => column !== 'name' && column !== 'created_at');
      await tx.run(
        `UPDATE ${this.table} SET ${changed.map((column, i) => `${this.q(column)} = ${this.p(i)}`).join(', ')} WHERE ${this.q('name')} = ${this.p(changed.length)}`,
        [...changed.map((column) => values[column]), name],
      );
      await this.generations.bump(WEBHOOK_ENDPOINTS_GENERATION, tx);
      return next;
    });
  }

  /**
   * Removes the endpoint and settles what it still had to send: its pending
   * deliveries become dead (visible, and replayable to another endpoint),
   * so they no longer hold their events back from retention. False when
   * there was none.
   */
  async remove(name: string, at: string): Promise<boolean> {
    const deliveries = this.q(DELIVERIES_TABLE);
    return this.db.transaction(async (tx) => {
      const { changes } = await tx.run(`DELETE FROM ${this.table} WHERE ${this.q('name')} = ${this.p(0)}`, [name]);
      if (changes === 0) return false;
      await tx.run(
        `UPDATE ${deliveries} SET ${this.q('status')} = 'dead', ${this.q('last_error')} = ${this.p(0)}, ${this.q('done_at')} = ${this.p(1)} ` +
          `WHERE ${this.q('endpoint')} = ${this.p(2)} AND ${this.q('status')} = 'pending'`,
        ['the endpoint was removed', at, name],
      );
      await this.generations.bump(WEBHOOK_ENDPOINTS_GENERATION, tx);
      return true;
    });
  }
}

function valuesOf(endpoint: StoredEndpoint): Record<Column, SqlValue> {
  return {
    name: endpoint.name,
    url: endpoint.url,
    events: JSON.stringify(endpoint.events),
    filter: endpoint.filter === undefined || endpoint.filter === null ? null : JSON.stringify(endpoint.filter),
    secret: endpoint.secret,
    paused: endpoint.paused ? 1 : 0,
    timeout_ms: endpoint.timeoutMs ?? null,
    retry_for_ms: endpoint.retryForMs ?? null,
    backoff_ms: endpoint.backoffMs ?? null,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
  };
}

function endpointOf(row: Row): StoredEndpoint {
  const number = (value: number | string | null): number | undefined => (value === null ? undefined : Number(value));
  return Object.freeze({
    name: row.name,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    filter: row.filter === null ? undefined : (JSON.parse(row.filter) as unknown),
    secret: row.secret,
    paused: row.paused === true || Number(row.paused) === 1,
    timeoutMs: number(row.timeout_ms),
    retryForMs: number(row.retry_for_ms),
    backoffMs: number(row.backoff_ms),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}
