import type { Change } from '../engine/change-bus.js';
import type { Engine } from '../engine/engine.js';
import { OutboxStore, type NewDelivery, type StoredEvent } from '../storage/outbox.js';
import { newId } from '../util/ids.js';
import { eventMessage, type EventMessage } from './event-message.js';
import { ENDPOINTS_CHANGED, WebhookRegistry } from './webhook-registry.js';
import { DEFAULT_RETENTION_MS, type EventsOptions } from './webhook-options.js';
import { WebhookSender, type EventsLogger } from './webhook-sender.js';

export type { EventMessage, EventPrincipal } from './event-message.js';
export type { EventsLogger } from './webhook-sender.js';

/** PostgreSQL channel instances wake each other on after publishing. */
export const EVENTS_CHANNEL = 'diglot_events';
/** The NOTIFY payload saying deliveries were added or retried by hand (`diglot webhooks`): every sender looks. */
export const DELIVERIES_CHANGED = 'deliveries';
const PUBLISH_BATCH = 200;
const DEFAULT_POLL_MS = 5_000;
const PRUNE_EVERY_MS = 3600 * 1000;
/** Every this many polls, publish even when nothing seems to have changed. */
const SAFETY_POLLS = 12;

/**
 * Events after commit, for one server: publishes committed events in commit
 * order, hands them to in-process subscribers, routes them to webhook
 * endpoints and prunes old ones (docs/events.md).
 */
export interface EventHub {
  /**
   * `listener` receives every event published from now on (by any instance
   * sharing the database), in publication order, in batches. Returns the
   * unsubscribe function. The hub swallows a listener's exception.
   */
  subscribe(listener: (events: readonly EventMessage[]) => void): () => void;
  /** Published events after `position` (0: from the oldest kept), up to `limit`: resume after a reconnect. */
  eventsAfter(position: number, limit?: number): Promise<EventMessage[]>;
  /** The position of the last published event (what a new subscriber starts after). */
  lastPosition(): Promise<number>;
  /** Publish and deliver now (the engine calls it after each commit). */
  wake(): void;
  /** Resolves once everything committed before the call is published and handed to subscribers (tests, shutdown). */
  settle(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface EventHubOptions extends Partial<EventsOptions> {
  readonly engine: Engine;
  readonly logger?: EventsLogger | undefined;
  /** The endpoints to send to (the configuration file's and the database's); made from `webhooks` when not given. */
  readonly registry?: WebhookRegistry | undefined;
}

export function createEventHub(options: EventHubOptions): EventHub {
  const { engine } = options;
  const db = engine.db;
  const store = new OutboxStore(db);
  const registry = options.registry ?? new WebhookRegistry(engine.model, db, options.webhooks ?? [], options.logger);
  /** One sender per endpoint that is not paused, made again when its definition changes. */
  const senders = new Map<string, { readonly version: string; readonly sender: WebhookSender }>();
  /** Some endpoint is known, paused or not: a paused one needs each commit published at once too, or an event committed while it is paused could be published (and queued for it) only after it resumed. */
  let endpointsKnown = false;
  const syncSenders = (): void => {
    endpointsKnown = registry.current().length > 0;
    const wanted = new Map(registry.current().filter((entry) => !entry.definition.paused).map((entry) => [entry.endpoint.name, entry]));
    for (const [name, held] of senders) {
      if (wanted.get(name)?.version === held.version) continue;
      senders.delete(name);
      void held.sender.stop();
    }
    for (const [name, entry] of wanted) {
      if (senders.has(name) || stopped) continue;
      const sender = new WebhookSender(entry.endpoint, store, options.logger);
      senders.set(name, { version: entry.version, sender });
      // A new or changed endpoint looks at once for what waits for it (a replay queued while it was paused).
      if (started) sender.wake();
    }
  };
  const listeners = new Set<(events: readonly EventMessage[]) => void>();
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  let seen = 0;
  let started = false;
  let stopped = false;
  let pumping: Promise<void> | undefined;
  let again = false;
  const timers: NodeJS.Timeout[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];

  /** Endpoints given deliveries since their senders were last woken. */
  const routed = new Set<string>();
  // A paused endpoint is given nothing: what is published meanwhile is not queued for it (a replay sends it later).
  const route = (event: StoredEvent): NewDelivery[] =>
    registry
      .current()
      .filter((entry) => !entry.definition.paused && entry.endpoint.wants(event))
      .map(({ endpoint }) => {
        routed.add(endpoint.name);
        return { id: newId(), eventSeq: event.seq, endpoint: endpoint.name };
      });
  const wakeSenders = (all: boolean): void => {
    for (const [name, { sender }] of senders) if (all || routed.has(name)) sender.wake();
    routed.clear();
  };

  const pumpOnce = async (): Promise<void> => {
    dirty = false;
    let published = 0;
    // Routed by the endpoints committed now, whichever instance changed them last.
    const ready = (generation: number): Promise<void> => registry.upToDate(generation);
    for (;;) {
      const batch = await store.publish(PUBLISH_BATCH, route, ready);
      published += batch.length;
      if (batch.length < PUBLISH_BATCH) break;
    }
    // Other instances: their subscribers and senders look now rather than at their next poll.
    if (published > 0) await db.notify?.(EVENTS_CHANNEL, '').catch(() => undefined);
    if (listeners.size > 0) {
      for (;;) {
        const rows = await store.eventsAfter(seen, PUBLISH_BATCH);
        if (rows.length === 0) break;
        seen = (rows[rows.length - 1] as StoredEvent).published;
        const messages = rows.map(eventMessage);
        for (const listener of listeners) {
          try {
            listener(messages);
          } catch (error) {
            options.logger?.warn({ err: error }, 'an event subscriber threw');
          }
        }
      }
    } else {
      seen = await store.lastPublished();
    }
    // Only the endpoints that have something new; the poll wakes them all (another process's deliveries, a replay).
    wakeSenders(false);
  };

  /** Read through a function: a wake during a pump sets `again`, which the loop's narrowing cannot see. */
  const repeat = (): boolean => again && !stopped;

  const pump = (): Promise<void> => {
    if (stopped || !started) return Promise.resolve();
    if (pumping !== undefined) {
      again = true;
      return pumping;
    }
    pumping = (async () => {
      do {
        again = false;
        await pumpOnce().catch((error: unknown) => options.logger?.warn({ err: error }, 'publishing events failed; retrying on the next poll'));
      } while (repeat());
    })().finally(() => {
      pumping = undefined;
    });
    return pumping;
  };

  /** Committed here since the last publication. */
  let dirty = false;
  let ticks = 0;
  /** Somebody waits for events now: webhooks or subscribers. Without them, publishing waits for the poll, in batches, off the writes' way. */
  const consumed = (): boolean => endpointsKnown || listeners.size > 0;
  /**
   * What the change bus says. A commit here publishes now (or at the next
   * poll when nobody waits); another instance's commit is published by that
   * instance, which says so on EVENTS_CHANNEL. The poll is the safety net,
   * and how SQLite processes sharing a file hear each other: it publishes
   * only when this process committed, another one did (the database's data
   * version moved), or once a minute whatever happened.
   */
  const changed = (change: Change): void => {
    if (change.kind === 'local') {
      dirty = true;
      if (consumed()) wake();
    } else if (change.kind === 'poll') {
      ticks += 1;
      // Without a channel (SQLite), another process's change of the endpoints is seen when the database moved.
      if (db.listen === undefined && change.moved) void registry.reload();
      if (dirty || change.moved || ticks % SAFETY_POLLS === 0) wake();
      wakeSenders(true);
    }
  };

  let scheduled = false;
  const wake = (): void => {
    if (scheduled || stopped) return;
    scheduled = true;
    // Coalesces a burst of commits into one publication.
    setImmediate(() => {
      scheduled = false;
      void pump();
    });
  };

  const prune = async (): Promise<void> => {
    const removed = await store.prune(new Date(Date.now() - retentionMs).toISOString()).catch((error: unknown) => {
      options.logger?.warn({ err: error }, 'pruning old events failed');
      return 0;
    });
    if (removed > 0) options.logger?.info({ removed }, 'pruned delivered events past their retention');
  };

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    eventsAfter: async (position, limit = PUBLISH_BATCH) => (await store.eventsAfter(position, limit)).map(eventMessage),
    lastPosition: () => store.lastPublished(),
    wake,
    settle: async () => {
      await pump();
      await pump();
    },
    async start() {
      if (started) return;
      started = true;
      seen = await store.lastPublished();
      cleanups.push(registry.onChange(syncSenders));
      await registry.reload();
      cleanups.push(engine.changes.subscribe(changed, { pollMs }));
      if (db.listen !== undefined) {
        const unlisten = await db.listen(EVENTS_CHANNEL, (payload) => {
          // Another instance changed the database's endpoints (or, after a reconnection, may have).
          if (payload === ENDPOINTS_CHANGED || payload === undefined) void registry.reload();
          wake();
          // Deliveries added by hand, or a reconnection after which anything may have been missed.
          if (payload === DELIVERIES_CHANGED || payload === undefined) wakeSenders(true);
        }).catch((error: unknown) => {
          options.logger?.warn({ err: error }, 'cannot LISTEN for events; polling only');
          return undefined;
        });
        if (unlisten !== undefined) cleanups.push(unlisten);
      }
      const pruning = setInterval(() => void prune(), PRUNE_EVERY_MS);
      pruning.unref();
      timers.push(pruning);
      // What an earlier run left (a crash between commit and publication), before serving: nothing runs behind the first requests.
      await prune();
      await pump();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await pumping;
      await Promise.all([...senders.values()].map((held) => held.sender.stop()));
      for (const cleanup of cleanups) await cleanup();
    },
  };
}
