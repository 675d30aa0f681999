import type { Engine } from '../engine/engine.js';
import { ApiError } from '../errors/api-error.js';
import type { DeprecatedUse } from '../plan/deprecated-use.js';
import type { RequestContext } from '../plan/request-context.js';
import { pushIterator, type PushIterator } from '../util/push-iterator.js';
import type { EventHub, EventMessage } from './event-hub.js';

/** Unread events a subscriber may fall behind by before it is ended (it can resume with its last cursor). */
export const MAX_UNREAD = 1_000;
const BACKLOG_PAGE = 200;

/** A question planned for its feed: what subscribing costs and how the feed turns an event into a message. */
export interface PlannedFeed<M> {
  /** What subscribing costs: what the question may read, as one read of it is charged. */
  readonly cost: number;
  /**
   * Makes the feed's renderer, once per feed (it reads for every subscriber
   * of the question, charged to nobody's request); may throw an ApiError
   * (a selection a deleted record cannot answer).
   */
  readonly renderer: () => (event: EventMessage) => Promise<M | undefined>;
  /** The deprecated things the question uses (an old type name kept by `@renamed`, a deprecated field): its plan's. */
  readonly deprecations: readonly DeprecatedUse[];
}

/** A subscription made: its messages, and the deprecated things its question uses (counted once, when subscribing). */
export interface Subscribed<M> {
  readonly results: PushIterator<M>;
  readonly deprecations: readonly DeprecatedUse[];
}

/** A change-event subscription as a front-end asks for it, its question already keyed. */
export interface ChangeSubscriptionRequest<M> {
  /** What decides the message: the question (type, kind, selection, filter) and whose view it is (`askerKey`). */
  readonly key: string;
  /** The event type the feed hears (`post.created`). */
  readonly eventType: string;
  /** The cursor to resume after (`eventCursor`), or undefined for events from now on. */
  readonly after: number | undefined;
  /** Who subscribes: charged the question's cost when subscribing, as a live read's first answer is. */
  readonly context: RequestContext;
  /** Plans the question (rules, masks, limits); called only when no feed has it. May throw to refuse it. */
  readonly plan: () => PlannedFeed<M>;
  /** This subscriber's last message when it is ended by `error`: resuming after `cursor` misses nothing (its framing, its own log). */
  readonly ended: (error: unknown, cursor: number) => M;
  /** Called once when the subscription ends (its place under the live-read limits). */
  readonly onEnd: () => void;
}

/** One shared read of each event for every subscriber with the same question and the same view. */
interface Feed<M> {
  readonly key: string;
  readonly eventType: string;
  readonly members: Set<Member<M>>;
  /** The subscriber's message for an event, or undefined when they are not to hear of it. */
  readonly render: (event: EventMessage) => Promise<M | undefined>;
  readonly cost: number;
  readonly deprecations: readonly DeprecatedUse[];
  /** Events are read one after another, in publication order. */
  queue: Promise<void>;
}

interface Member<M> {
  readonly results: PushIterator<M>;
  readonly ended: (error: unknown, cursor: number) => M;
  /** The position of the last event sent: nothing at or before it is sent again. */
  last: number;
  /** While a resuming subscriber reads its backlog, what the feed sends meanwhile waits here. */
  held: { readonly position: number; readonly result: M }[] | undefined;
}

/**
 * Change-event subscriptions, whatever the front-end: each published event
 * of a feed's type becomes one message per subscriber, rendered once per
 * distinct question and view (the front-end's renderer applies the rules,
 * docs/live-reads.md), in publication order, each subscriber ending at
 * most `MAX_UNREAD` behind. Subscribing `after` a cursor first sends the
 * events since, as long as they are kept (`events.retentionDays`). The
 * front-end keeps its framing: how a question is planned and keyed, and
 * how an event or an end becomes a message (`M`).
 */
export class ChangeSubscriptions<M> {
  readonly #feeds = new Map<string, Feed<M>>();
  readonly #byType = new Map<string, Set<Feed<M>>>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    private readonly hub: EventHub,
    private readonly usage: Pick<Engine['deprecationUsage'], 'record'>,
  ) {}

  /**
   * Throws (an ApiError, or what `plan` throws) when the question cannot be
   * subscribed to: over a limit, a selection a deleted record cannot answer,
   * a cursor whose events are no longer kept. Nothing is held then.
   */
  async subscribe(request: ChangeSubscriptionRequest<M>): Promise<Subscribed<M>> {
    const { after } = request;
    const planned = this.#feeds.get(request.key) ?? request.plan();
    // Charged when it starts, as the first answer of a live read is: its events are the feed's, read once for every subscriber.
    const charged = request.context.meter.spend(planned.cost);
    if (charged !== undefined) await charged;
    const feed = this.#feedFor(request, planned);
    const results = pushIterator<M>(
      () => {
        // Only ever called after `member` is made: the iterator ends when it is returned or falls behind.
        this.#leave(feed, member);
        request.onEnd();
      },
      // The cursor of the last event queued: the reader has it once it reads up to this message.
      { max: MAX_UNREAD, overflow: () => fellBehind(member) },
    );
    const member: Member<M> = { results, ended: request.ended, last: after ?? 0, held: after === undefined ? undefined : [] };
    // Joined before the backlog is read: what is published from here on reaches `held`, what was before is in the outbox.
    this.#join(feed, member);
    if (after !== undefined) {
      try {
        const first = await this.#backlogStart(after);
        void this.#catchUp(feed, member, first);
      } catch (error) {
        this.#leave(feed, member);
        throw error;
      }
    }
    // Counted when it starts, as a live read is: each event it is sent is the same use.
    this.usage.record(feed.deprecations, request.context);
    return { results, deprecations: feed.deprecations };
  }

  #feedFor(request: ChangeSubscriptionRequest<M>, planned: PlannedFeed<M> | Feed<M>): Feed<M> {
    const known = this.#feeds.get(request.key);
    if (known !== undefined) return known;
    // Another subscriber's feed was planned but has gone since: plan it again.
    if (!('renderer' in planned)) return this.#feedFor(request, request.plan());
    const { key, eventType } = request;
    const feed: Feed<M> = { key, eventType, members: new Set(), render: planned.renderer(), cost: planned.cost, deprecations: planned.deprecations, queue: Promise.resolve() };
    // Registered before anything awaits, so a second subscriber with the same question finds this one.
    this.#feeds.set(key, feed);
    let set = this.#byType.get(eventType);
    if (set === undefined) this.#byType.set(eventType, (set = new Set()));
    set.add(feed);
    return feed;
  }

  #join(feed: Feed<M>, member: Member<M>): void {
    feed.members.add(member);
    this.#unsubscribe ??= this.hub.subscribe((events) => this.#publish(events));
  }

  #leave(feed: Feed<M>, member: Member<M>): void {
    feed.members.delete(member);
    if (feed.members.size > 0 || this.#feeds.get(feed.key) !== feed) return;
    this.#feeds.delete(feed.key);
    const set = this.#byType.get(feed.eventType);
    set?.delete(feed);
    if (set?.size === 0) this.#byType.delete(feed.eventType);
    if (this.#feeds.size === 0) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    }
  }

  #publish(events: readonly EventMessage[]): void {
    for (const event of events) {
      for (const feed of this.#byType.get(event.type) ?? []) {
        feed.queue = feed.queue
          .then(async () => {
            let result: M | undefined;
            try {
              result = await feed.render(event);
            } catch (error) {
              // An event that could not be read (an outage) is not skipped: each subscriber is ended with a cursor before it, to resume from.
              for (const member of feed.members) member.results.end(member.ended(error, member.held === undefined ? event.position - 1 : member.last));
              return;
            }
            if (result !== undefined) for (const member of feed.members) offer(member, event.position, result);
          })
          .catch(() => undefined);
      }
    }
  }

  /** The first page of events after `after`; a cursor the kept events no longer reach is refused. */
  async #backlogStart(after: number): Promise<EventMessage[]> {
    const first = await this.hub.eventsAfter(after, BACKLOG_PAGE);
    const next = first[0];
    // Positions are given one by one: a first one past `after + 1` means the ones between were pruned.
    if (next !== undefined ? next.position > after + 1 : after > (await this.hub.lastPosition())) {
      throw new ApiError('QUERY_INVALID_CURSOR', {
        detail: `The events after cursor ${after} are no longer kept (or never were); subscribe without \`after\` and read what you need again`,
      });
    }
    return first;
  }

  /**
   * Sends a resuming subscriber the events since its cursor, page by page
   * until the outbox has no more, then what the feed sent meanwhile (none
   * twice: each goes by its position).
   */
  async #catchUp(feed: Feed<M>, member: Member<M>, firstPage: EventMessage[]): Promise<void> {
    const { results } = member;
    try {
      for (let page = firstPage; page.length > 0; page = await this.hub.eventsAfter(member.last, BACKLOG_PAGE)) {
        for (const event of page) {
          // Gone (closed, or ended for falling behind): the rest of the backlog is nobody's.
          if (!feed.members.has(member)) return;
          const result = event.type === feed.eventType ? await feed.render(event) : undefined;
          // A reader that stopped reading is not fed its whole backlog into memory.
          await results.readBelow(MAX_UNREAD / 2);
          if (result !== undefined) results.push(result);
          member.last = event.position;
        }
      }
    } catch (error) {
      // The backlog could not be read (an outage): say so and end; the subscriber resumes from its last cursor.
      results.end(member.ended(error, member.last));
      return;
    }
    const held = member.held ?? [];
    member.held = undefined;
    for (const { position, result } of held) offer(member, position, result);
  }
}

/** A cursor a subscriber sends back (`after`): the position of the last event it read. */
export function eventCursor(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw new ApiError('QUERY_INVALID_CURSOR', { detail: '`after` takes the `extensions.event.cursor` of a message this subscription sent' });
  }
  return Number(value);
}

function offer<M>(member: Member<M>, position: number, result: M): void {
  if (member.held !== undefined) {
    // Catching up from far behind while events keep coming: the outbox is the buffer, resuming again reads it.
    if (member.held.length >= MAX_UNREAD) member.results.end(fellBehind(member));
    else member.held.push({ position, result });
  } else if (position > member.last) {
    // Pushed first: if it overflows the queue, the message saying so carries the cursor of the last one queued.
    member.results.push(result);
    member.last = position;
  }
}

/** The last message of a subscription that fell `MAX_UNREAD` behind. */
function fellBehind<M>(member: Member<M>): M {
  const error = new ApiError('LIVE_READS_LIMIT', { detail: `More than ${MAX_UNREAD} events were left unread; subscribe again with \`after\` set to this message's cursor` });
  return member.ended(error, member.last);
}
