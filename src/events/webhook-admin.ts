import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { OutboxStore, type Delivery, type DeliveryAttempt, type DeliveryStatus } from '../storage/outbox.js';
import { newId } from '../util/ids.js';
import { DELIVERIES_CHANGED, EVENTS_CHANNEL } from './event-hub.js';
import { compileEndpoints, type Endpoint } from './webhook-endpoints.js';
import type { EventsOptions } from './webhook-options.js';

export interface EndpointSummary {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly pending: number;
  readonly delivered: number;
  readonly dead: number;
}

/** What `diglot webhooks …` does, against the database, with or without a server running. */
export interface WebhookAdmin {
  list(): Promise<EndpointSummary[]>;
  deliveries(filter: { readonly endpoint?: string; readonly status?: DeliveryStatus; readonly limit: number }): Promise<(Delivery & { readonly eventId: string; readonly eventType: string })[]>;
  attempts(deliveryId: string): Promise<DeliveryAttempt[]>;
  /** Sends one delivery again (a dead one too); false when there is none with this id. */
  retry(deliveryId: string): Promise<boolean>;
  /** New deliveries of the events since `since` to the endpoints (or the one named) that want them; returns how many. */
  replay(since: Date, endpoint?: string): Promise<number>;
}

const REPLAY_BATCH = 500;

export function createWebhookAdmin(model: Model, db: Database, options: EventsOptions): WebhookAdmin {
  const store = new OutboxStore(db);
  const endpoints = compileEndpoints(model, options.webhooks);
  // Running servers look at once rather than at their next poll (PostgreSQL; SQLite servers poll).
  const wakeServers = (): Promise<void> => db.notify?.(EVENTS_CHANNEL, DELIVERIES_CHANGED).catch(() => undefined) ?? Promise.resolve();
  const endpointNamed = (name: string): Endpoint => {
    const found = endpoints.find((endpoint) => endpoint.name === name);
    if (found === undefined) throw new Error(`no webhook is named ${name} (configured: ${endpoints.map((e) => e.name).join(', ') || 'none'})`);
    return found;
  };
  return {
    async list() {
      const counts = await store.counts();
      return options.webhooks.map((hook) => {
        const of = (status: DeliveryStatus): number => counts.find((row) => row.endpoint === hook.name && row.status === status)?.count ?? 0;
        return { name: hook.name, url: hook.url, events: hook.events, pending: of('pending'), delivered: of('delivered'), dead: of('dead') };
      });
    },
    deliveries: (filter) => store.deliveries(filter),
    attempts: (id) => store.attempts(id),
    async retry(id) {
      const found = await store.retry(id, new Date());
      if (found) await wakeServers();
      return found;
    },
    async replay(since, name) {
      const targets = name === undefined ? endpoints : [endpointNamed(name)];
      let count = 0;
      let after = 0;
      for (;;) {
        const events = await store.eventsSince(since.toISOString(), after, REPLAY_BATCH);
        if (events.length === 0) break;
        const deliveries = events.flatMap((event) => targets.filter((endpoint) => endpoint.wants(event)).map((endpoint) => ({ id: newId(), eventSeq: event.seq, endpoint: endpoint.name })));
        await store.addDeliveries(deliveries);
        count += deliveries.length;
        after = (events[events.length - 1] as { published: number }).published;
      }
      await wakeServers();
      return count;
    },
  };
}
