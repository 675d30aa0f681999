import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { WebhookEndpointStore, type StoredEndpoint } from '../storage/webhook-endpoints.js';
import { checkEndpoint, compileEndpoints, type Endpoint } from './webhook-endpoints.js';
import type { WebhookOptions } from './webhook-options.js';
import type { EventsLogger } from './webhook-sender.js';

/** Where an endpoint was declared: the configuration file (read-only at run time) or the database (the admin API). */
export type EndpointSource = 'config' | 'database';

/** An endpoint as declared, with where it comes from; its secret stays here, never in an answer. */
export interface EndpointDefinition extends WebhookOptions {
  readonly source: EndpointSource;
  readonly paused: boolean;
  readonly createdAt: string | undefined;
  readonly updatedAt: string | undefined;
}

export interface RegisteredEndpoint {
  readonly definition: EndpointDefinition;
  readonly endpoint: Endpoint;
  /** Changes whenever anything the sender uses changes (URL, secret, timeouts, events, filter): its sender is made again. */
  readonly version: string;
}

/** The NOTIFY payload on the events channel saying the database's endpoints changed. */
export const ENDPOINTS_CHANGED = 'endpoints';

/**
 * The webhook endpoints a server sends to: the configuration file's,
 * checked once (a problem stops the server, as before), and the
 * database's, read at start and again whenever one changes (here, through
 * the admin API, or on another instance, which says so on the events
 * channel). A database endpoint the schema no longer fits (its type was
 * removed) is left out with a warning rather than stopping the server.
 */
export class WebhookRegistry {
  readonly store: WebhookEndpointStore;
  readonly #configured: RegisteredEndpoint[];
  #stored: RegisteredEndpoint[] = [];
  readonly #listeners = new Set<() => void>();
  #loading: Promise<void> | undefined;
  #again = false;
  /** The generation of the database's endpoints when `#stored` was read (undefined before the first read). */
  #generation: number | undefined;

  constructor(
    private readonly model: Model,
    private readonly db: Database,
    configured: readonly WebhookOptions[],
    private readonly logger?: EventsLogger,
  ) {
    this.store = new WebhookEndpointStore(db);
    const compiled = compileEndpoints(model, configured);
    this.#configured = configured.map((options, i) => registered({ ...options, source: 'config', paused: false, createdAt: undefined, updatedAt: undefined }, compiled[i] as Endpoint));
    for (const { endpoint } of this.#configured) this.#warnOldNames(endpoint);
  }

  /** Every endpoint, the configuration file's first. */
  current(): readonly RegisteredEndpoint[] {
    return [...this.#configured, ...this.#stored];
  }

  configured(name: string): boolean {
    return this.#configured.some((entry) => entry.definition.name === name);
  }

  /** Calls `listener` after each reload that may have changed the endpoints. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the database's endpoints again (one statement); overlapping calls share one read, then one more. */
  reload(): Promise<void> {
    if (this.#loading !== undefined) {
      this.#again = true;
      return this.#loading;
    }
    this.#loading = (async () => {
      do {
        this.#again = false;
        // Read before the rows: a change committed after this read moves it again, and the next look reloads.
        const generation = await this.store.generation().catch(() => undefined);
        const rows = await this.store.list().catch((error: unknown) => {
          // Before `migrate` made the table (a one-off use), or an outage: keep what is known.
          this.logger?.warn({ err: error }, 'cannot read the webhook endpoints kept in the database; keeping the ones known');
          return undefined;
        });
        if (rows !== undefined) {
          this.#stored = rows.flatMap((row) => this.#compile(row));
          this.#generation = generation;
        }
      } while (this.#repeat());
    })().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading.then(() => {
      for (const listener of this.#listeners) listener();
    });
  }

  /**
   * Resolves once the endpoints held are the ones committed at `generation`
   * (the database's, just read): reloads when another process changed them
   * (its notice may still be on its way). A publication calls it, so an event
   * written after a change is routed by the change, whichever instance made it.
   */
  async upToDate(generation: number): Promise<void> {
    if (generation !== this.#generation) await this.reload();
    else await this.#loading;
  }

  /** After this process changed the table: reload here, and tell the other instances. */
  async changed(channel: string): Promise<void> {
    await this.reload();
    await this.db.notify?.(channel, ENDPOINTS_CHANGED).catch(() => undefined);
  }

  /** Read through a method: a reload asked for during a read sets `#again`, which the loop's narrowing cannot see. */
  #repeat(): boolean {
    return this.#again;
  }

  #compile(row: StoredEndpoint): RegisteredEndpoint[] {
    const definition = definitionOf(row);
    const { endpoint, problems } = checkEndpoint(this.model, definition);
    if (endpoint === undefined) {
      this.logger?.warn({ endpoint: row.name, problems }, 'a webhook endpoint kept in the database does not fit the schema; it gets no deliveries until changed');
      return [];
    }
    this.#warnOldNames(endpoint);
    return [registered(definition, endpoint)];
  }

  /** An endpoint asking for events by an old name (`@renamed`) is sent them under it; its owner is told, as a client's use of an old name is. */
  #warnOldNames(endpoint: Endpoint): void {
    if (endpoint.deprecations.length === 0) return;
    this.logger?.warn(
      { endpoint: endpoint.name, deprecations: endpoint.deprecations.map((use) => `${use.coordinate}: ${use.reason}`) },
      'a webhook endpoint names event types by an old name (@renamed); it is sent them under that name while the directive is declared: change its events to the new names',
    );
  }
}

export function definitionOf(row: StoredEndpoint): EndpointDefinition {
  return {
    name: row.name,
    url: row.url,
    events: row.events,
    filter: row.filter as WebhookOptions['filter'],
    secret: row.secret,
    timeoutMs: row.timeoutMs,
    retryForMs: row.retryForMs,
    backoffMs: row.backoffMs,
    source: 'database',
    paused: row.paused,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function registered(definition: EndpointDefinition, endpoint: Endpoint): RegisteredEndpoint {
  const { url, events, filter, secret, timeoutMs, retryForMs, backoffMs, paused } = definition;
  return { definition, endpoint, version: JSON.stringify([url, events, filter ?? null, secret, timeoutMs ?? null, retryForMs ?? null, backoffMs ?? null, paused]) };
}
