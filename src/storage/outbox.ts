/**
 * The outbox's SQL: the event a write inserts in its own transaction, and
 * what the event machinery (src/events/) does with events afterwards —
 * publishing them in commit order, webhook deliveries and their log,
 * retention. Nothing else writes these tables.
 */

import type { Database, SqlCompilerHooks, SqlRunner, SqlValue } from './dialect.js';
import { DELIVERIES_TABLE, DELIVERY_LOG_TABLE, EVENT_STATE_TABLE, EVENTS_TABLE } from './migrate/desired-schema.js';
import { WEBHOOK_ENDPOINTS_GENERATION } from './generations.js';

/** The `WITH` clause holding the written row that an event's record image is read from. */
export const EVENT_ROW = '_event_row';

/** An event as a write records it; `record` / `previous` are JSON text (the REST representation). */
export interface EventValues {
  readonly id: string;
  readonly type: string;
  readonly recordId: string;
  /** JSON text: `{id, role, via}`. */
  readonly principal: string;
  readonly record: string | null;
  readonly previous: string | null;
  readonly target: string | null;
  readonly createdAt: string;
}

type ImageColumn = 'record' | 'previous';
const VALUE_COLUMNS = ['id', 'type', 'record_id', 'principal', 'record', 'previous', 'target', 'created_at'] as const;

/**
 * The INSERT of one event, its placeholders numbered from `firstParam`. With
 * `image`, the column it names is that SQL (a scalar subquery rendering the
 * record, over a `WITH` clause of the statement) instead of a placeholder,
 * so the record's representation costs no statement of its own.
 */
export function eventInsertSql(hooks: SqlCompilerHooks, firstParam: number, image?: { readonly column: ImageColumn; readonly sql: string }): string {
  const q = (name: string): string => hooks.quoteIdent(name);
  let at = firstParam;
  const values = VALUE_COLUMNS.map((column) => (column === image?.column ? `(${image.sql})` : hooks.placeholder(at++)));
  return `INSERT INTO ${q(EVENTS_TABLE)} (${VALUE_COLUMNS.map(q).join(', ')}) VALUES (${values.join(', ')})`;
}

/** The params of `eventInsertSql`, in its order, without the image's column. */
export function eventInsertParams(event: EventValues, image?: ImageColumn): SqlValue[] {
  const all: Record<(typeof VALUE_COLUMNS)[number], SqlValue> = {
    id: event.id,
    type: event.type,
    record_id: event.recordId,
    principal: event.principal,
    record: event.record,
    previous: event.previous,
    target: event.target,
    created_at: event.createdAt,
  };
  return VALUE_COLUMNS.filter((column) => column !== image).map((column) => all[column]);
}

/** Where `column` is among `eventInsertParams(event, image)`. */
export function eventParamIndex(column: (typeof VALUE_COLUMNS)[number], image?: ImageColumn): number {
  return VALUE_COLUMNS.filter((name) => name !== image).indexOf(column);
}

/**
 * `WITH <EVENT_ROW> AS (the row of `table` with id placeholder(0)) `, the
 * prefix of a statement reading an image of that row. On PostgreSQL the row
 * is locked, so the image is of the version this write changes.
 */
export function eventRowPrefix(db: Pick<Database, 'sql' | 'supports'>, table: string): string {
  const q = (name: string): string => db.sql.quoteIdent(name);
  const lock = db.supports.rowLocks === true ? ' FOR UPDATE' : '';
  return `WITH ${q(EVENT_ROW)} AS (SELECT * FROM ${q(table)} WHERE ${q('id')} = ${db.sql.placeholder(0)}${lock}) `;
}

// ---------------------------------------------------------------------------
// After commit: publication, deliveries, retention

/** An event as stored, with its position in publication order. */
export interface StoredEvent extends EventValues {
  readonly seq: number;
  readonly published: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface Delivery {
  readonly id: string;
  readonly eventSeq: number;
  readonly endpoint: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAt: string;
  readonly firstAt: string;
  readonly lastCode: number | null;
  readonly lastError: string | null;
  readonly doneAt: string | null;
}

export interface DeliveryAttempt {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly at: string;
  readonly outcome: 'ok' | 'http' | 'timeout' | 'network';
  readonly code: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

/** A new delivery: the event to send and the endpoint to send it to. */
export interface NewDelivery {
  readonly id: string;
  readonly eventSeq: number;
  readonly endpoint: string;
}

const PUBLISHED = 'published';

/** Rows as drivers return them: PostgreSQL's bigint may come as text. */
type Numeric = number | string;
type EventRow = Omit<StoredEvent, 'seq' | 'published'> & { readonly seq: Numeric; readonly published: Numeric | null };
type DeliveryRow = Omit<Delivery, 'eventSeq' | 'attempts' | 'lastCode'> & { readonly eventSeq: Numeric; readonly attempts: Numeric; readonly lastCode: Numeric | null };
type AttemptRow = Omit<DeliveryAttempt, 'attempt' | 'latencyMs' | 'code'> & { readonly attempt: Numeric; readonly latencyMs: Numeric; readonly code: Numeric | null };
const EVENT_COLUMNS =
  'e.seq AS seq, e.id AS id, e.type AS type, e.record_id AS "recordId", e.principal AS principal, e.record AS record, ' +
  'e.previous AS previous, e.target AS target, e.created_at AS "createdAt", e.published AS published';
const DELIVERY_COLUMNS =
  'd.id AS id, d.event_seq AS "eventSeq", d.endpoint AS endpoint, d.status AS status, d.attempts AS attempts, d.next_at AS "nextAt", ' +
  'd.first_at AS "firstAt", d.last_code AS "lastCode", d.last_error AS "lastError", d.done_at AS "doneAt"';

/**
 * The event tables after commit. Every method is a few statements; the
 * webhook worker and the CLI (src/events/) hold no SQL of their own.
 */
export class OutboxStore {
  private readonly p: (i: number) => string;
  private counterReady = false;
  private readonly skipLocked: string;

  constructor(private readonly db: Database) {
    this.p = (i) => db.sql.placeholder(i);
    this.skipLocked = db.supports.rowLocks === true ? ' FOR UPDATE SKIP LOCKED' : '';
  }

  /**
   * Publishes committed events: gives each a position after every position
   * given before (`published`), so "events after position N" never misses
   * one that committed late with a smaller `seq`, and creates the deliveries
   * `route` asks for, in one transaction. One instance publishes at a time
   * (the counter's row lock); another finding it held returns at once with
   * nothing, as the holder publishes for both. `ready` runs first when
   * events wait (not on a wake-up that finds none), with the webhook
   * endpoints' generation read by the same look: what `route` reads is made
   * current there, at no statement of its own.
   */
  async publish(limit: number, route: (event: StoredEvent) => readonly NewDelivery[], ready?: (endpointsGeneration: number) => Promise<void>): Promise<StoredEvent[]> {
    const { p } = this;
    if (!this.counterReady) {
      await this.db.run(`INSERT INTO ${EVENT_STATE_TABLE_Q} (name, value) VALUES (${p(0)}, 0) ON CONFLICT (name) DO NOTHING`, [PUBLISHED]);
      this.counterReady = true;
    }
    // One cheap look first: most wake-ups find nothing, and need no transaction.
    const [waiting] = await this.db.all<{ generation: number | string | null }>(
      `SELECT (SELECT value FROM ${EVENT_STATE_TABLE_Q} WHERE name = ${p(0)}) AS generation FROM ${EVENTS_TABLE_Q} WHERE published IS NULL LIMIT 1`,
      [WEBHOOK_ENDPOINTS_GENERATION],
    );
    if (waiting === undefined) return [];
    await ready?.(Number(waiting.generation ?? 0));
    return this.db.transaction(async (tx) => {
      const [counter] = await tx.all<{ value: number | string }>(
        `SELECT value FROM ${EVENT_STATE_TABLE_Q} WHERE name = ${p(0)}${this.skipLocked}`,
        [PUBLISHED],
      );
      if (counter === undefined) return [];
      const rows = await tx.all<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE_Q} e WHERE e.published IS NULL ORDER BY e.seq LIMIT ${p(0)}`,
        [limit],
      );
      if (rows.length === 0) return [];
      let position = Number(counter.value);
      const published: StoredEvent[] = [];
      for (const row of rows) {
        position += 1;
        published.push({ ...numbered(row), published: position });
      }
      // One statement for the lot: the rows read above, each given its own position.
      const cases = published.map((_, i) => `WHEN ${p(i * 2)} THEN CAST(${p(i * 2 + 1)} AS BIGINT)`).join(' ');
      const base = published.length * 2;
      await tx.run(
        `UPDATE ${EVENTS_TABLE_Q} SET published = CASE seq ${cases} END WHERE seq IN (${published.map((_, i) => p(base + i)).join(', ')})`,
        [...published.flatMap((event) => [event.seq, event.published]), ...published.map((event) => event.seq)],
      );
      await tx.run(`UPDATE ${EVENT_STATE_TABLE_Q} SET value = ${p(0)} WHERE name = ${p(1)}`, [position, PUBLISHED]);
      const deliveries = published.flatMap(route);
      await this.insertDeliveries(tx, deliveries, new Date().toISOString());
      return published;
    });
  }

  private async insertDeliveries(tx: SqlRunner, deliveries: readonly NewDelivery[], now: string): Promise<void> {
    const { p } = this;
    // Chunks keep a statement under the databases' limits on placeholders.
    for (let start = 0; start < deliveries.length; start += 200) {
      const chunk = deliveries.slice(start, start + 200);
      // Each placeholder once, in text order: SQLite's are positional.
      const values = chunk.map((_, i) => `(${p(i * 5)}, ${p(i * 5 + 1)}, ${p(i * 5 + 2)}, 'pending', 0, ${p(i * 5 + 3)}, ${p(i * 5 + 4)})`);
      await tx.run(
        `INSERT INTO ${DELIVERIES_TABLE_Q} (id, event_seq, endpoint, status, attempts, next_at, first_at) VALUES ${values.join(', ')}`,
        chunk.flatMap((d) => [d.id, d.eventSeq, d.endpoint, now, now]),
      );
    }
  }

  /** Published events after `position`, in publication order. */
  async eventsAfter(position: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.db.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE_Q} e WHERE e.published > ${this.p(0)} ORDER BY e.published LIMIT ${this.p(1)}`,
      [position, limit],
    );
    return rows.map(numbered);
  }

  /** The last publication position (0 before any). */
  async lastPublished(): Promise<number> {
    const [row] = await this.db.all<{ value: number | string }>(`SELECT value FROM ${EVENT_STATE_TABLE_Q} WHERE name = ${this.p(0)}`, [PUBLISHED]);
    return row === undefined ? 0 : Number(row.value);
  }

  async eventsBySeq(seqs: readonly number[]): Promise<StoredEvent[]> {
    if (seqs.length === 0) return [];
    const rows = await this.db.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE_Q} e WHERE e.seq IN (${seqs.map((_, i) => this.p(i)).join(', ')})`,
      [...seqs],
    );
    return rows.map(numbered);
  }

  /** Published events created at or after `since` (and before `until`, if given), after publication position `after`, in publication order (for replay). */
  async eventsSince(since: string, after: number, limit: number, until?: string): Promise<StoredEvent[]> {
    const before = until === undefined ? '' : ` AND e.created_at < ${this.p(3)}`;
    const rows = await this.db.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE_Q} e WHERE e.created_at >= ${this.p(0)} AND e.published > ${this.p(1)}${before} ORDER BY e.published LIMIT ${this.p(2)}`,
      until === undefined ? [since, after, limit] : [since, after, limit, until],
    );
    return rows.map(numbered);
  }

  /** A published event by its id (`evt_…`), for a replay of one: a scan of the kept events, which nothing else looks up by id. */
  async eventById(id: string): Promise<StoredEvent | undefined> {
    const [row] = await this.db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE_Q} e WHERE e.id = ${this.p(0)} AND e.published IS NOT NULL`, [id]);
    return row === undefined ? undefined : numbered(row);
  }

  /**
   * Takes up to `limit` due deliveries of `endpoint` for this worker: each
   * is pushed `leaseMs` into the future (`next_at`), so no other worker
   * takes it while this one sends; on PostgreSQL, rows another instance is
   * claiming are skipped (FOR UPDATE SKIP LOCKED), so no event is sent twice.
   */
  async claim(endpoint: string, limit: number, now: Date, leaseMs: number): Promise<Delivery[]> {
    const { p } = this;
    return this.db.transaction(async (tx) => {
      const due = await tx.all<{ id: string }>(
        `SELECT d.id AS id FROM ${DELIVERIES_TABLE_Q} d WHERE d.status = 'pending' AND d.endpoint = ${p(0)} AND d.next_at <= ${p(1)} ` +
          `ORDER BY d.next_at, d.event_seq LIMIT ${p(2)}${this.skipLocked}`,
        [endpoint, now.toISOString(), limit],
      );
      if (due.length === 0) return [];
      const ids = due.map((row) => row.id);
      const inList = ids.map((_, i) => p(i + 1)).join(', ');
      await tx.run(`UPDATE ${DELIVERIES_TABLE_Q} SET next_at = ${p(0)} WHERE id IN (${inList})`, [new Date(now.getTime() + leaseMs).toISOString(), ...ids]);
      const rows = await tx.all<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERIES_TABLE_Q} d WHERE d.id IN (${ids.map((_, i) => p(i)).join(', ')}) ORDER BY d.event_seq`, ids);
      return rows.map(deliveryRow);
    });
  }

  /** Records an attempt and the delivery's new state, together. */
  async settle(attempt: DeliveryAttempt, state: { readonly status: DeliveryStatus; readonly nextAt: string }): Promise<void> {
    const { p } = this;
    await this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO ${DELIVERY_LOG_TABLE_Q} (delivery_id, attempt, at, outcome, code, latency_ms, error) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)})`,
        [attempt.deliveryId, attempt.attempt, attempt.at, attempt.outcome, attempt.code, Math.round(attempt.latencyMs), attempt.error],
      );
      await tx.run(
        `UPDATE ${DELIVERIES_TABLE_Q} SET status = ${p(0)}, attempts = ${p(1)}, next_at = ${p(2)}, last_code = ${p(3)}, last_error = ${p(4)}, done_at = ${p(5)} WHERE id = ${p(6)}`,
        [state.status, attempt.attempt, state.nextAt, attempt.code, attempt.error, state.status === 'pending' ? null : attempt.at, attempt.deliveryId],
      );
    });
  }

  /** The earliest time a pending delivery of `endpoint` falls due, if any. */
  async nextDue(endpoint: string): Promise<string | undefined> {
    const [row] = await this.db.all<{ at: string | null }>(
      `SELECT min(d.next_at) AS at FROM ${DELIVERIES_TABLE_Q} d WHERE d.status = 'pending' AND d.endpoint = ${this.p(0)}`,
      [endpoint],
    );
    return row?.at ?? undefined;
  }

  async deliveries(filter: { readonly endpoint?: string; readonly status?: DeliveryStatus; readonly limit: number }): Promise<(Delivery & { readonly eventId: string; readonly eventType: string })[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    if (filter.endpoint !== undefined) where.push(`d.endpoint = ${this.p(params.push(filter.endpoint) - 1)}`);
    if (filter.status !== undefined) where.push(`d.status = ${this.p(params.push(filter.status) - 1)}`);
    const rows = await this.db.all<DeliveryRow & { eventId: string; eventType: string }>(
      `SELECT ${DELIVERY_COLUMNS}, e.id AS "eventId", e.type AS "eventType" FROM ${DELIVERIES_TABLE_Q} d JOIN ${EVENTS_TABLE_Q} e ON e.seq = d.event_seq ` +
        `${where.length === 0 ? '' : `WHERE ${where.join(' AND ')} `}ORDER BY d.first_at DESC, d.event_seq DESC LIMIT ${this.p(params.length)}`,
      [...params, filter.limit],
    );
    return rows.map((row) => ({ ...deliveryRow(row), eventId: row.eventId, eventType: row.eventType }));
  }

  async delivery(id: string): Promise<(Delivery & { readonly eventId: string; readonly eventType: string }) | undefined> {
    const [row] = await this.db.all<DeliveryRow & { eventId: string; eventType: string }>(
      `SELECT ${DELIVERY_COLUMNS}, e.id AS "eventId", e.type AS "eventType" FROM ${DELIVERIES_TABLE_Q} d JOIN ${EVENTS_TABLE_Q} e ON e.seq = d.event_seq WHERE d.id = ${this.p(0)}`,
      [id],
    );
    return row === undefined ? undefined : { ...deliveryRow(row), eventId: row.eventId, eventType: row.eventType };
  }

  /** The attempts of several deliveries at once, by delivery id, each in order. */
  async attemptsOf(deliveryIds: readonly string[]): Promise<Map<string, DeliveryAttempt[]>> {
    const found = new Map<string, DeliveryAttempt[]>(deliveryIds.map((id) => [id, []]));
    if (deliveryIds.length === 0) return found;
    const rows = await this.db.all<AttemptRow>(
      `SELECT delivery_id AS "deliveryId", attempt, at, outcome, code, latency_ms AS "latencyMs", error FROM ${DELIVERY_LOG_TABLE_Q} ` +
        `WHERE delivery_id IN (${deliveryIds.map((_, i) => this.p(i)).join(', ')}) ORDER BY seq`,
      [...deliveryIds],
    );
    for (const row of rows) found.get(row.deliveryId)?.push(attemptOf(row));
    return found;
  }

  async attempts(deliveryId: string): Promise<DeliveryAttempt[]> {
    const rows = await this.db.all<AttemptRow>(
      `SELECT delivery_id AS "deliveryId", attempt, at, outcome, code, latency_ms AS "latencyMs", error FROM ${DELIVERY_LOG_TABLE_Q} WHERE delivery_id = ${this.p(0)} ORDER BY seq`,
      [deliveryId],
    );
    return rows.map(attemptOf);
  }

  /** Deliveries by endpoint and status, for `diglot webhooks list`. */
  async counts(): Promise<{ readonly endpoint: string; readonly status: DeliveryStatus; readonly count: number }[]> {
    const rows = await this.db.all<{ endpoint: string; status: DeliveryStatus; count: Numeric }>(
      `SELECT endpoint, status, count(*) AS count FROM ${DELIVERIES_TABLE_Q} GROUP BY endpoint, status`,
    );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
  }

  /** Sends a delivery again from now (a dead one too); false when there is none with this id. */
  async retry(deliveryId: string, now: Date): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE ${DELIVERIES_TABLE_Q} SET status = 'pending', next_at = ${this.p(0)}, first_at = ${this.p(1)}, done_at = NULL WHERE id = ${this.p(2)}`,
      [now.toISOString(), now.toISOString(), deliveryId],
    );
    return changes > 0;
  }

  /** New deliveries of past events (replay): sent as any other, with the events' own ids. */
  async addDeliveries(deliveries: readonly NewDelivery[]): Promise<void> {
    await this.db.transaction((tx) => this.insertDeliveries(tx, deliveries, new Date().toISOString()));
  }

  /**
   * Retention: published events created before `before` whose deliveries
   * are all finished go, with those deliveries and their log. Returns the
   * number of events removed.
   */
  async prune(before: string): Promise<number> {
    const { p } = this;
    const old =
      `SELECT e.seq FROM ${EVENTS_TABLE_Q} e WHERE e.published IS NOT NULL AND e.created_at < ${p(0)} ` +
      `AND NOT EXISTS (SELECT 1 FROM ${DELIVERIES_TABLE_Q} d WHERE d.event_seq = e.seq AND d.status = 'pending')`;
    return this.db.transaction(async (tx) => {
      await tx.run(
        `DELETE FROM ${DELIVERY_LOG_TABLE_Q} WHERE delivery_id IN (SELECT d.id FROM ${DELIVERIES_TABLE_Q} d WHERE d.event_seq IN (${old}))`,
        [before],
      );
      await tx.run(`DELETE FROM ${DELIVERIES_TABLE_Q} WHERE event_seq IN (${old})`, [before]);
      const { changes } = await tx.run(`DELETE FROM ${EVENTS_TABLE_Q} WHERE seq IN (${old})`, [before]);
      return changes;
    });
  }
}

const EVENTS_TABLE_Q = `"${EVENTS_TABLE}"`;
const DELIVERIES_TABLE_Q = `"${DELIVERIES_TABLE}"`;
const DELIVERY_LOG_TABLE_Q = `"${DELIVERY_LOG_TABLE}"`;
const EVENT_STATE_TABLE_Q = `"${EVENT_STATE_TABLE}"`;

function numbered(row: EventRow): StoredEvent {
  return { ...row, seq: Number(row.seq), published: Number(row.published ?? 0) };
}

function attemptOf(row: AttemptRow): DeliveryAttempt {
  return { ...row, attempt: Number(row.attempt), latencyMs: Number(row.latencyMs), code: row.code === null ? null : Number(row.code) };
}

function deliveryRow(row: DeliveryRow): Delivery {
  return {
    ...row,
    eventSeq: Number(row.eventSeq),
    attempts: Number(row.attempts),
    lastCode: row.lastCode === null ? null : Number(row.lastCode),
  };
}
