import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { StorageLogger } from './open-postgres.js';

/** Advisory-lock keys (arbitrary, fixed; the migration lock is …513). The lease key is exported for tests. */
export const LEASE_KEY = '7283110596124352514';
const PRESENCE_KEY = '7283110596124352515';
/** Where a process that starts (or reconnects) asks the holder to give the lease up. */
const CHANNEL = 'diglot_writer_lease';
/** How often the lease is tried for, or, held, confirmed. */
const TICK_MS = 500;
/**
 * How long a holder trusts the lease without a confirmed round trip on its
 * connection. Past it the holder drops the connection (which frees the lock)
 * and works as a non-holder: that bounds how long a holder cut off from
 * the database (a failover, a partition) goes on answering from memory.
 */
const LEASE_MS = 1_500;
/**
 * How long a process must have seen itself alone before it takes the lease:
 * longer than a holder that lost its connection unnoticed can go on
 * writing without the guard (`LEASE_MS`, then a tick), with room to spare.
 */
const ALONE_MS = 3_000;
/** A query on the lease's connection that takes longer means the connection is in trouble. */
const QUERY_TIMEOUT_MS = 3_000;
/**
 * The server's side of the lease's connection: a holder whose host vanished
 * is noticed within seconds (and its locks freed), not after the operating
 * system's two-hour keepalive.
 */
const SESSION_SETTINGS = 'SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3; SET tcp_user_timeout = 6000';

/** True when no other process holds the presence lock (taking it for an instant is how to ask). */
const NOBODY_ELSE = `CASE WHEN pg_try_advisory_lock(${PRESENCE_KEY}) THEN pg_advisory_unlock(${PRESENCE_KEY}) ELSE false END`;

/**
 * The SQL a clock bump carries while this process does not hold the lease:
 * a transaction-level shared lock on the lease key, taken before the bump's
 * row and held until COMMIT. It waits while another process holds the lease.
 */
export const CLOCK_GUARD = `FROM (SELECT pg_advisory_xact_lock_shared(${LEASE_KEY})) AS "_lease" WHERE true`;

type State = 'connecting' | 'shared' | 'taking' | 'sole' | 'closed';

/**
 * The writer lease: lets a process that is the only Diglot on a PostgreSQL
 * database know that nobody else commits a change-clock move, so its change
 * clock can answer a revalidation from memory, with no round trip (as
 * SQLite does from the WAL-index header). Correct with any number of
 * processes, and fast when there is one.
 *
 * - Every process keeps one connection of its own that holds a shared
 *   *presence* lock for its lifetime, LISTENs on `CHANNEL`, and, once it
 *   holds the presence lock, NOTIFYs there.
 * - A process takes the *lease* (the lease key, exclusive, on that
 *   connection) only when no other process has held the presence lock for
 *   `ALONE_MS`: only while it is alone.
 * - Every clock bump made without the lease carries `CLOCK_GUARD`, which
 *   waits while anyone holds the lease. So while a process holds it, no
 *   other process commits a clock move: its own commits, which its change
 *   clock notes as they happen, are the only ones.
 * - A holder that hears another process's NOTIFY gives the lease up: first
 *   it stops answering from memory, then it unlocks, and only then can the
 *   newcomer's guarded writes go on.
 * - Taking the lease first lets this process's own guarded writes finish,
 *   and holds new ones back until it is done: a guard built before the
 *   lease was taken would wait on it forever.
 * - A process whose own connection is down asks through the pool before
 *   each guarded write, so its writes do not wait on a holder that did not
 *   hear of it.
 *
 * Advisory locks belong to the connection, so a connection that dies frees
 * them; the holder then stops answering from memory at once (connection
 * error) or within `LEASE_MS` (no answer).
 *
 * Every process that writes change clocks must take part: a Diglot build
 * without the lease, or SQL run by hand against `_diglot_clock`, is not
 * fenced out.
 */
export class WriterLease {
  readonly #id = randomUUID();
  #state: State = 'connecting';
  #client: pg.Client | undefined;
  /** When the holder last sent a query its connection answered: the lock was held then. */
  #confirmedAt = 0;
  /** A heartbeat or presence probe is out. */
  #probing = false;
  /** Since when every probe found no other process (undefined: not alone, or asked to let go since). */
  #aloneSince: number | undefined;
  /** Moves each time the lease is taken: the token a holder gives `dataVersion`. */
  #epoch = 0;
  /** Tokens while not holding: each one new, so nothing is reused. */
  #unsure = 0;
  #guardedInFlight = 0;
  #drained: (() => void) | undefined;
  /** Settles when the current attempt to connect or take the lease has; writes wait for it. */
  #pending: Promise<void> | undefined;
  /** A newcomer asked while the lease was being taken. */
  #releaseAsked = false;
  /** The last connection failed (reported once, not at every retry). */
  #failing = false;
  readonly #timer: NodeJS.Timeout;

  /**
   * `url`: where the lease's own connection goes. `send`: a statement on
   * another connection (the pool), for asking a holder to let go while the
   * lease's own connection is down.
   */
  constructor(
    private readonly url: string,
    private readonly send: (sql: string, params: readonly string[]) => Promise<unknown>,
    private readonly options: { readonly connectTimeoutMs: number; readonly logger: StorageLogger | undefined },
  ) {
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    this.#timer.unref();
    this.#tick();
  }

  /** The first attempt to connect: a process that starts is announced before it serves. */
  ready(): Promise<void> {
    return this.#pending ?? Promise.resolve();
  }

  /**
   * For `Database.dataVersion`: the same number as long as this process has
   * held the lease without a break; a new one on every call otherwise.
   */
  dataVersion(): number {
    return this.#holds() ? this.#epoch : --this.#unsure;
  }

  /** Whether this process holds the lease: no other Diglot process is on the database. */
  get sole(): boolean {
    return this.#holds();
  }

  /** For `Database.clockWrite`. */
  async clockWrite<T>(work: (guard: string | undefined) => Promise<T>): Promise<T> {
    // Connecting or taking: wait for it, so no guard is built that the lease this process takes would block.
    while (this.#pending !== undefined && this.#state !== 'closed') await this.#pending;
    if (this.#holds()) return work(undefined);
    this.#guardedInFlight++;
    try {
      // Not announced (the lease's connection is down): ask any holder to let go, or the guard would wait for it.
      if (this.#state === 'connecting') await this.send('SELECT pg_notify($1, $2)', [CHANNEL, this.#id]);
      return await work(CLOCK_GUARD);
    } finally {
      if (--this.#guardedInFlight === 0) this.#drained?.();
    }
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    clearInterval(this.#timer);
    this.#drained?.();
    await this.#pending;
    const client = this.#client;
    this.#client = undefined;
    // Ending the connection frees its locks.
    await client?.end().catch(() => undefined);
  }

  /**
   * Held, and confirmed within `LEASE_MS`. A holder past that drops the
   * connection, so the server frees the lock wherever it still can, before
   * it writes again: from then on its writes carry the guard.
   */
  #holds(): boolean {
    if (this.#state !== 'sole') return false;
    if (Date.now() - this.#confirmedAt <= LEASE_MS) return true;
    this.#drop(new Error(`the writer-lease connection did not answer within ${LEASE_MS} ms`));
    return false;
  }

  #tick(): void {
    if (this.#pending !== undefined || this.#probing) return;
    if (this.#state === 'connecting') this.#attempt(this.#announce());
    else if (this.#state === 'shared') this.#probe();
    else if (this.#state === 'sole' && this.#holds()) this.#probe();
  }

  #attempt(work: Promise<void>): void {
    const pending = work
      .catch((error: unknown) => this.#drop(error))
      .finally(() => {
        if (this.#pending === pending) this.#pending = undefined;
      });
    this.#pending = pending;
  }

  /** A connection of its own: LISTEN, hold the presence lock, tell any holder to let go. */
  async #announce(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'diglot-writer-lease',
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
    });
    this.#client = client;
    client.on('error', (error) => this.#drop(error, client));
    client.on('end', () => this.#drop(new Error('the writer-lease connection closed'), client));
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== this.#id) this.#release();
    });
    await client.connect();
    await client.query(SESSION_SETTINGS);
    await client.query(`LISTEN ${CHANNEL}`);
    await client.query(`SELECT pg_advisory_lock_shared(${PRESENCE_KEY})`);
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, this.#id]);
    if (this.#client === client && this.#state === 'connecting') {
      this.#state = 'shared';
      this.#aloneSince = undefined;
      this.#failing = false;
    }
  }

  /**
   * One round trip: held, it confirms the connection (the heartbeat); not
   * held, it asks whether anyone else holds the presence lock, and takes
   * the lease once nobody has for `ALONE_MS`.
   */
  #probe(): void {
    const client = this.#client;
    if (client === undefined) return;
    const holding = this.#state === 'sole';
    this.#probing = true;
    const sentAt = Date.now();
    client.query<{ alone: boolean }>(holding ? 'SELECT 1' : `SELECT ${NOBODY_ELSE} AS alone`).then(
      ({ rows }) => {
        this.#probing = false;
        if (this.#client !== client) return;
        if (holding) {
          if (this.#state === 'sole') this.#confirmedAt = sentAt;
          return;
        }
        if (rows[0]?.alone !== true) {
          this.#aloneSince = undefined;
          return;
        }
        this.#aloneSince ??= sentAt;
        if (this.#state === 'shared' && Date.now() - this.#aloneSince >= ALONE_MS && this.#pending === undefined) this.#attempt(this.#take());
      },
      (error: unknown) => {
        this.#probing = false;
        this.#drop(error, client);
      },
    );
  }

  /** Lets this process's guarded writes finish (new ones wait on `#pending`), then takes the lease if still alone. */
  async #take(): Promise<void> {
    const client = this.#client;
    if (client === undefined) return;
    this.#state = 'taking';
    this.#releaseAsked = false;
    if (this.#guardedInFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#drained = undefined;
    if (this.#stateNow() !== 'taking') return;
    const sentAt = Date.now();
    const { rows } = await client.query<{ sole: boolean }>(
      `SELECT CASE WHEN ${NOBODY_ELSE} THEN pg_try_advisory_lock(${LEASE_KEY}) ELSE false END AS sole`,
    );
    // Closed or dropped meanwhile: the connection's end frees whatever it took.
    if (this.#stateNow() !== 'taking' || this.#client !== client) return;
    if (rows[0]?.sole !== true) {
      this.#state = 'shared';
      this.#aloneSince = undefined;
      return;
    }
    this.#epoch++;
    this.#confirmedAt = sentAt;
    this.#state = 'sole';
    if (this.#wasReleaseAsked()) this.#release();
  }

  /** The state as it is now: read after an await, where it may have moved. */
  #stateNow(): State {
    return this.#state;
  }

  #wasReleaseAsked(): boolean {
    return this.#releaseAsked;
  }

  /** Another process has come: stop answering from memory, then unlock so its guarded writes can go on. */
  #release(): void {
    this.#aloneSince = undefined;
    if (this.#state === 'taking') {
      this.#releaseAsked = true;
      return;
    }
    if (this.#state !== 'sole') return;
    this.#state = 'shared';
    const client = this.#client;
    client?.query(`SELECT pg_advisory_unlock(${LEASE_KEY})`).catch((error: unknown) => this.#drop(error, client));
  }

  /** The connection failed or stopped answering: no lease from here on, until a new connection is announced. */
  #drop(error: unknown, client = this.#client): void {
    // A connection already replaced has nothing left to drop.
    if (this.#state === 'closed' || client === undefined || client !== this.#client) return;
    const wasSole = this.#state === 'sole';
    this.#state = 'connecting';
    this.#client = undefined;
    this.#drained?.();
    client.removeAllListeners();
    client.on('error', () => undefined);
    // Ending the connection frees the locks at once where the server still hears it.
    client.end().catch(() => undefined);
    if (!this.#failing) this.options.logger?.warn({ err: error, wasSole }, 'the PostgreSQL writer-lease connection failed; revalidations read the change clocks until it is back');
    this.#failing = true;
  }
}
