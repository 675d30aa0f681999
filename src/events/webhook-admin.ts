import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { OutboxStore, type Delivery, type DeliveryAttempt, type DeliveryStatus, type StoredEvent } from '../storage/outbox.js';
import { newId } from '../util/ids.js';
import { DELIVERIES_CHANGED, EVENTS_CHANNEL } from './event-hub.js';
import type { Endpoint } from './webhook-endpoints.js';
import type { EventsOptions } from './webhook-options.js';
import { WebhookRegistry, type EndpointSource } from './webhook-registry.js';

export interface EndpointSummary {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly source: EndpointSource;
  readonly paused: boolean;
  readonly pending: number;
  readonly delivered: number;
  readonly dead: number;
}

export type DeliveryRecord = Delivery & { readonly eventId: string; readonly eventType: string };

/** Which kept events a replay sends again: one by its id, or those created in a time range. */
export type ReplaySelection = { readonly eventId: string } | { readonly since: Date; readonly until?: Date | undefined };

/** What `diglot webhooks …` and the admin API do, against the database, with or without a server running. */
export interface WebhookAdmin {
  list(): Promise<EndpointSummary[]>;
  deliveries(filter: { readonly endpoint?: string | undefined; readonly status?: DeliveryStatus | undefined; readonly limit: number }): Promise<DeliveryRecord[]>;
  attempts(deliveryId: string): Promise<DeliveryAttempt[]>;
  /** The attempts of each delivery, by its id (one statement). */
  attemptsOf(deliveryIds: readonly string[]): Promise<Map<string, DeliveryAttempt[]>>;
  delivery(id: string): Promise<DeliveryRecord | undefined>;
  /** Sends one delivery again (a dead one too); false when there is none with this id. */
  retry(deliveryId: string): Promise<boolean>;
  /** New deliveries of the events since `since` to the endpoints (or the one named) that want them; returns how many. */
  replay(since: Date, endpoint?: string): Promise<number>;
  /** New deliveries to one endpoint of the kept events selected that it wants; returns how many. */
  replayTo(endpoint: string, selection: ReplaySelection): Promise<number>;
}

const REPLAY_BATCH = 500;

export function createWebhookAdmin(model: Model, db: Database, options: EventsOptions, known?: WebhookRegistry): WebhookAdmin {
  const store = new OutboxStore(db);
  const registry = known ?? new WebhookRegistry(model, db, options.webhooks);
  // A one-off use (the CLI) reads the database's endpoints each time; a server's registry is kept current.
  const endpoints = async (): Promise<Endpoint[]> => {
    if (known === undefined) await registry.reload();
    return registry.current().map((entry) => entry.endpoint);
  };
  // Running servers look at once rather than at their next poll (PostgreSQL; SQLite servers poll).
  const wakeServers = (): Promise<void> => db.notify?.(EVENTS_CHANNEL, DELIVERIES_CHANGED).catch(() => undefined) ?? Promise.resolve();
  const endpointNamed = async (name: string): Promise<Endpoint> => {
    const all = await endpoints();
    const found = all.find((endpoint) => endpoint.name === name);
    if (found === undefined) throw new Error(`no webhook is named ${name} (configured: ${all.map((e) => e.name).join(', ') || 'none'})`);
    return found;
  };
  /** Queues deliveries of each page of `events` to the `targets` that want them. */
  const queue = async (targets: readonly Endpoint[], page: (after: number) => Promise<StoredEvent[]>): Promise<number> => {
    let count = 0;
    let after = 0;
    for (;;) {
      const events = await page(after);
      if (events.length === 0) break;
      const deliveries = events.flatMap((event) => targets.filter((endpoint) => endpoint.wants(event)).map((endpoint) => ({ id: newId(), eventSeq: event.seq, endpoint: endpoint.name })));
      await store.addDeliveries(deliveries);
      count += deliveries.length;
      after = (events[events.length - 1] as { published: number }).published;
    }
    await wakeServers();
    return count;
  };
  return {
    async list() {
      if (known === undefined) await registry.reload();
      const counts = await store.counts();
      return registry.current().map(({ definition }) => {
        const of = (status: DeliveryStatus): number => counts.find((row) => row.endpoint === definition.name && row.status === status)?.count ?? 0;
        const { name, url, events, source, paused } = definition;
        return { name, url, events, source, paused, pending: of('pending'), delivered: of('delivered'), dead: of('dead') };
      });
    },
    deliveries: (filter) => store.deliveries(filter),
    attempts: (id) => store.attempts(id),
    attemptsOf: (ids) => store.attemptsOf(ids),
    delivery: (id) => store.delivery(id),
    async retry(id) {
      const found = await store.retry(id, new Date());
      if (found) await wakeServers();
      return found;
    },
    async replay(since, name) {
      const targets = name === undefined ? await endpoints() : [await endpointNamed(name)];
      return queue(targets, (after) => store.eventsSince(since.toISOString(), after, REPLAY_BATCH));
    },
    async replayTo(name, selection) {
      const target = await endpointNamed(name);
      if ('eventId' in selection) {
        let pending = await store.eventById(selection.eventId);
        return queue([target], () => {
          const page = pending === undefined ? [] : [pending];
          pending = undefined;
          return Promise.resolve(page);
        });
      }
      const until = selection.until?.toISOString();
      return queue([target], (after) => store.eventsSince(selection.since.toISOString(), after, REPLAY_BATCH, until));
    },
  };
}
