import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { StorageLogger } from './open-postgres.js';
import { postgresHooks } from './postgres-hooks.js';

/** The channel instances announce committed clock moves on. */
const CHANNEL = 'diglot_changes';
/** After the listening connection fails, the next attempt waits this long. */
const RETRY_MS = 1_000;
/** NOTIFY payloads must stay under 8,000 bytes; a longer table list is sent as "everything". */
const MAX_PAYLOAD = 7_000;

export type ChangeListener = (tables: readonly string[] | undefined) => void;
/** A notification's payload, or undefined when the connection came back after a break (anything may have been said meanwhile). */
export type ChannelListener = (payload: string | undefined) => void;

/**
 * Tells the other Diglot processes on the database which tables' clocks this
 * one moved (`NOTIFY` after COMMIT, so a listener that re-reads finds the
 * change), and hears theirs (`LISTEN` on a connection of its own, opened at
 * the first listener). Announcements made in one event-loop turn go out as
 * one NOTIFY. A listener is told `undefined` (anything may have moved) when
 * the connection comes back after a break, since what was said meanwhile
 * is lost. A process that crashes between COMMIT and NOTIFY is covered by
 * the change bus's safety poll (engine/change-bus.ts).
 *
 * The same connection carries the process's other LISTENs (`listen`: the
 * event hub's), so a process holds one listening connection, and every
 * listener gets the same reconnection.
 */
export class ChangeChannel {
  readonly #id = randomUUID();
  readonly #listeners = new Set<ChangeListener>();
  readonly #channels = new Map<string, Set<ChannelListener>>();
  /** Channels whose first LISTEN has not taken effect yet, with what resolves their `ready`. */
  readonly #firstListen = new Map<string, () => void>();
  /** The channels LISTENed on the current connection (or the one opening). */
  #listened = new Set<string>();
  /** The last statement sent on it, which the next one waits for. */
  #sending: Promise<unknown> = Promise.resolve();
  #pending: Set<string> | undefined;
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly send: (sql: string, params: readonly string[]) => Promise<unknown>,
    private readonly options: { readonly connectTimeoutMs: number; readonly logger: StorageLogger | undefined; readonly alone: () => boolean },
  ) {}

  announce(tables: readonly string[]): void {
    if (this.#closed || tables.length === 0) return;
    if (this.#pending === undefined) {
      this.#pending = new Set();
      setImmediate(() => this.#flush());
    }
    for (const table of tables) this.#pending.add(table);
  }

  watch(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    this.#open();
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Hears `channel` on the same connection until `stop` is called. `ready`
   * resolves once its first LISTEN took effect, or the connection failed
   * (it is retried; the listener is then told `undefined` when it is back).
   */
  listen(channel: string, listener: ChannelListener): { readonly stop: () => void; readonly ready: Promise<void> } {
    let listeners = this.#channels.get(channel);
    let ready = Promise.resolve();
    if (listeners === undefined) {
      this.#channels.set(channel, (listeners = new Set()));
      ready = new Promise((resolve) => this.#firstListen.set(channel, resolve));
      // Connected already: LISTEN on it now (a connection still opening LISTENs on every channel before it is used).
      if (this.#client !== undefined) this.#listenOn(this.#client, channel);
    }
    listeners.add(listener);
    this.#open();
    const mine = listeners;
    const stop = (): void => {
      mine.delete(listener);
      if (mine.size > 0 || this.#channels.get(channel) !== mine) return;
      this.#channels.delete(channel);
      this.#listened.delete(channel);
      if (this.#client !== undefined) this.#send(this.#client, `UNLISTEN ${postgresHooks.quoteIdent(channel)}`).catch(() => undefined);
    };
    return { stop, ready };
  }

  /**
   * A LISTEN on `channel` took effect. The first one ever is its listener's
   * start; a later one follows a break, during which anything may have been
   * said, and the listener is told so (`undefined`).
   */
  #listening(channel: string): void {
    const first = this.#firstListen.get(channel);
    if (first === undefined) {
      this.#tellChannel(channel, undefined);
      return;
    }
    this.#firstListen.delete(channel);
    first();
  }

  #open(): void {
    if (this.#client === undefined && this.#connecting === undefined && !this.#closed) this.#connect();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #flush(): void {
    const tables = [...(this.#pending ?? [])];
    this.#pending = undefined;
    // The lease is held only while no other process is on the database: nobody to tell.
    if (this.#closed || this.options.alone()) return;
    let list = tables.sort().join(',');
    if (list.length > MAX_PAYLOAD) list = '*';
    this.send('SELECT pg_notify($1, $2)', [CHANNEL, `${this.#id} ${list}`]).catch((error: unknown) => {
      this.options.logger?.warn({ err: error }, 'could not announce a change to other instances; they see it at their next look at the clocks');
    });
  }

  #connect(): void {
    const client = new pg.Client({ connectionString: this.url, application_name: 'diglot-changes', connectionTimeoutMillis: this.options.connectTimeoutMs, keepAlive: true });
    /** This attempt is the current one: the first failure of it retries, later ones (an 'end' after an 'error') do not. */
    let current = true;
    const retry = (error: unknown): void => {
      if (!current) return;
      current = false;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      // Whoever waits for a first LISTEN goes on without it; once back, they are told they may have missed something.
      for (const resolve of this.#firstListen.values()) resolve();
      this.#firstListen.clear();
      if (this.#closed) return;
      this.options.logger?.warn({ err: error }, 'the connection that hears other instances failed; reconnecting');
      this.#retry = setTimeout(() => {
        if (!this.#closed && this.#client === undefined && this.#connecting === undefined && (this.#listeners.size > 0 || this.#channels.size > 0)) this.#connect();
      }, RETRY_MS);
      this.#retry.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('the change-channel connection closed')));
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL) {
        this.#tellChannel(message.channel, message.payload ?? '');
        return;
      }
      if (message.payload === undefined) return;
      const space = message.payload.indexOf(' ');
      if (message.payload.slice(0, space) === this.#id) return;
      const list = message.payload.slice(space + 1);
      this.#tell(list === '*' ? undefined : list.split(','));
    });
    this.#listened = new Set();
    const listened = this.#listened;
    this.#connecting = (async () => {
      await client.connect();
      // Channels added while this runs are LISTENed too, before the connection is used.
      for (let missing = [CHANNEL]; missing.length > 0; missing = [...this.#channels.keys()].filter((channel) => !listened.has(channel))) {
        for (const channel of missing) {
          await client.query(`LISTEN ${postgresHooks.quoteIdent(channel)}`);
          listened.add(channel);
        }
      }
    })().then(
      () => {
        this.#connecting = undefined;
        if (!current) return;
        if (this.#closed) {
          current = false;
          client.end().catch(() => undefined);
          return;
        }
        this.#client = client;
        for (const channel of this.#channels.keys()) if (!listened.has(channel)) this.#listenOn(client, channel);
        // Whatever was announced before LISTEN took effect was not heard.
        this.#tell(undefined);
        for (const channel of listened) if (channel !== CHANNEL && this.#channels.has(channel)) this.#listening(channel);
      },
      (error: unknown) => {
        this.#connecting = undefined;
        retry(error);
      },
    );
  }

  /** LISTEN on an open connection; when that fails the connection is dropped, and the next one LISTENs on every channel. */
  #listenOn(client: pg.Client, channel: string): void {
    this.#listened.add(channel);
    this.#send(client, `LISTEN ${postgresHooks.quoteIdent(channel)}`).then(
      () => this.#listening(channel),
      () => client.end().catch(() => undefined),
    );
  }

  /** One statement at a time on the listening connection (pg queues overlapping ones, and will refuse them). */
  #send(client: pg.Client, sql: string): Promise<unknown> {
    const sent = this.#sending.then(() => client.query(sql));
    this.#sending = sent.catch(() => undefined);
    return sent;
  }

  #tell(tables: readonly string[] | undefined): void {
    for (const listener of this.#listeners) listener(tables);
  }

  #tellChannel(channel: string, payload: string | undefined): void {
    for (const listener of this.#channels.get(channel) ?? []) listener(payload);
  }
}

