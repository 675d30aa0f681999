import { ApiError } from '../../errors/api-error.js';
import type { EventHub, EventMessage } from '../../events/event-hub.js';
import type { FilterInput } from '../../plan/build-filter.js';
import { askerKey } from '../../plan/principal.js';
import { unlimitedMeter } from '../../plan/request-context.js';
import { imageReadProblem, readImage } from '../../plan/read-image.js';
import type { ReadPlan } from '../../plan/read-plan.js';
import { toCamelCase } from '../../util/naming.js';
import { pushIterator, type PushIterator } from '../../util/push-iterator.js';
import { formatError, type FormatOptions, type FormattedError } from '../response/format-error.js';
import type { StreamResult } from '../response/stream-result.js';
import type { RootStep } from './compile-operation.js';
import { liveOperation, runOperation, type LiveOperation, type RunContext, type RunnableOperation } from './run-operation.js';

type DataStep = Extract<RootStep, { kind: 'data' }>;
type EventKind = 'created' | 'updated' | 'deleted';
type EventStep = DataStep & { readonly role: { readonly kind: EventKind } };

export function isEventStep(step: RootStep): step is EventStep {
  return step.kind === 'data' && (step.role.kind === 'created' || step.role.kind === 'updated' || step.role.kind === 'deleted');
}

/** Unread events a subscriber may fall behind by before it is ended (it can resume with its last cursor). */
const MAX_UNREAD = 1_000;
const BACKLOG_PAGE = 200;

/** A change-event subscription as the GraphQL handler asks for it. */
export interface EventSubscription {
  readonly ctx: RunContext;
  readonly op: RunnableOperation;
  readonly step: EventStep;
  /** Released when the subscription ends (its place under the live-read limits). */
  readonly onEnd: () => void;
}

/** One shared read of each event for every subscriber with the same question and the same view. */
interface Feed {
  readonly key: string;
  readonly eventType: string;
  readonly members: Set<Member>;
  /** The subscriber's message for an event, or undefined when they are not to hear of it. */
  readonly render: (event: EventMessage) => Promise<StreamResult | undefined>;
  /** What subscribing to it costs: what its plan may read, as one read of it is charged. */
  readonly cost: number;
  /** Events are read one after another, in publication order. */
  queue: Promise<void>;
}

/** A question planned for its feed: what the feed is keyed by and reads with. */
interface PlannedFeed {
  readonly key: string;
  readonly eventType: string;
  readonly listStep: DataStep;
  readonly live: Extract<LiveOperation, { kind: 'live' }>;
  readonly cost: number;
}

interface Member {
  readonly results: PushIterator<StreamResult>;
  /** This subscriber's own error options (its request's log). */
  readonly format: FormatOptions;
  /** The position of the last event sent: nothing at or before it is sent again. */
  last: number;
  /** While a resuming subscriber reads its backlog, what the feed sends meanwhile waits here. */
  held: { readonly position: number; readonly result: StreamResult }[] | undefined;
}

/**
 * Change-event subscriptions (`postCreated(filter:)`, `postUpdated`,
 * `postDeleted`): each published event of the type and kind becomes one
 * message with the subscriber's selection of the record, as that
 * subscriber may read it (docs/live-reads.md).
 *
 * - The subscriber's own `posts(filter:, first: 1)` is planned when
 *   subscribing (rules, masks, limits), then answered for each event from
 *   the event's image of the record (plan/read-image.ts): as this change
 *   left it, or, for a delete, as it was. The filter and the subscriber's
 *   rules are evaluated on that image; to-one relations are read now.
 * - A selection an image cannot answer (the record's lists, a rule that
 *   looks through a relation) re-reads a created or updated record in the
 *   database, narrowed to the event's id, exactly as that query would; a
 *   deleted one cannot be, and is refused.
 *
 * Subscribers with the same selection, filter and view (`askerKey`) share
 * one feed, so an event costs one read per distinct question, not per
 * subscriber. Each message carries `extensions.event.cursor`; subscribing
 * with `after: <cursor>` first sends the events since, as long as they are
 * kept (`events.retentionDays`).
 */
export class ChangeEventFeeds {
  readonly #feeds = new Map<string, Feed>();
  readonly #byType = new Map<string, Set<Feed>>();
  #unsubscribe: (() => void) | undefined;

  constructor(private readonly hub: EventHub) {}

  /**
   * Throws (an ApiError) when the question cannot be subscribed to: over a
   * limit, a selection a deleted record cannot answer, a cursor whose
   * events are no longer kept. Nothing is held then.
   */
  async subscribe(request: EventSubscription): Promise<PushIterator<StreamResult>> {
    const { ctx, step } = request;
    const after = cursorOf(step.args['after']);
    const planned = this.#plan(request);
    // Charged when it starts, as the first answer of a live read is: its events are the feed's, read once for every subscriber.
    const charged = ctx.context.meter.spend(planned.cost);
    if (charged !== undefined) await charged;
    const feed = this.#feedFor(request, planned);
    const results = pushIterator<StreamResult>(
      () => {
        // Only ever called after `member` is made: the iterator ends when it is returned or falls behind.
        this.#leave(feed, member);
        request.onEnd();
      },
      // The cursor of the last event queued: the reader has it once it reads up to this message.
      { max: MAX_UNREAD, overflow: () => fellBehind(ctx.format, member.last) },
    );
    const member: Member = { results, format: ctx.format, last: after ?? 0, held: after === undefined ? undefined : [] };
    // Joined before the backlog is read: what is published from here on reaches `held`, what was before is in the outbox.
    this.#join(feed, member);
    if (after === undefined) return results;
    try {
      const first = await this.#backlogStart(after);
      void this.#catchUp(feed, member, first);
    } catch (error) {
      this.#leave(feed, member);
      throw error;
    }
    return results;
  }

  /** The question's feed as it is known, or planned now, so a question over the limits, or one a deleted record cannot answer, is refused when subscribing. */
  #plan(request: EventSubscription): PlannedFeed | Feed {
    const { ctx, op, step } = request;
    const eventType = `${toCamelCase(step.role.type.name)}.${step.role.kind}`;
    // What decides the message: the question (key, selection, filter) and whose view it is.
    const key = `${JSON.stringify([eventType, step.key, step.filter ?? null, step.select])} ${askerKey(ctx.engine.model, ctx.context.principal)}`;
    const known = this.#feeds.get(key);
    if (known !== undefined) return known;
    const listStep: DataStep = { ...step, role: { kind: 'list', type: step.role.type }, list: { filter: step.filter, first: 1 }, filter: step.filter, args: {} };
    const live = liveOperation(ctx, { ...op, steps: [listStep], reads: undefined });
    if (live.kind === 'failed') throw new SubscriptionRefused(live.body);
    return { key, eventType, listStep, live, cost: ctx.engine.readCost(live.plans) };
  }

  #feedFor(request: EventSubscription, planned: PlannedFeed | Feed): Feed {
    const known = this.#feeds.get(planned.key);
    if (known !== undefined) return known;
    // Another subscriber's feed was planned but has gone since: plan it again.
    if (!('listStep' in planned)) return this.#feedFor(request, this.#plan(request));
    const { key, eventType, listStep, live, cost } = planned;
    // The feed reads for all its subscribers: with the first one's view, charged to nobody's request (each paid when subscribing).
    const shared: EventSubscription = { ...request, ctx: { ...request.ctx, context: { ...request.ctx.context, meter: unlimitedMeter() } } };
    const render = rendererOf(shared, listStep, live);
    const feed: Feed = { key, eventType, members: new Set(), render, cost, queue: Promise.resolve() };
    // Registered before anything awaits, so a second subscriber with the same question finds this one.
    this.#feeds.set(key, feed);
    let set = this.#byType.get(eventType);
    if (set === undefined) this.#byType.set(eventType, (set = new Set()));
    set.add(feed);
    return feed;
  }

  #join(feed: Feed, member: Member): void {
    feed.members.add(member);
    this.#unsubscribe ??= this.hub.subscribe((events) => this.#publish(events));
  }

  #leave(feed: Feed, member: Member): void {
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
            let result: StreamResult | undefined;
            try {
              result = await feed.render(event);
            } catch (error) {
              // An event that could not be read (an outage) is not skipped: each subscriber is ended with a cursor before it, to resume from.
              for (const member of feed.members) member.results.end(failed(error, member.format, member.held === undefined ? event.position - 1 : member.last));
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
  async #catchUp(feed: Feed, member: Member, firstPage: EventMessage[]): Promise<void> {
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
      results.end(failed(error, member.format, member.last));
      return;
    }
    const held = member.held ?? [];
    member.held = undefined;
    for (const { position, result } of held) offer(member, position, result);
  }
}

/** A subscription refused while planning: the GraphQL response saying why (no data). */
export class SubscriptionRefused extends Error {
  constructor(readonly body: string) {
    super('subscription refused');
  }
}

function offer(member: Member, position: number, result: StreamResult): void {
  if (member.held !== undefined) {
    // Catching up from far behind while events keep coming: the outbox is the buffer, resuming again reads it.
    if (member.held.length >= MAX_UNREAD) member.results.end(fellBehind(member.format, member.last));
    else member.held.push({ position, result });
  } else if (position > member.last) {
    // Pushed first: if it overflows the queue, the message saying so carries the cursor of the last one queued.
    member.results.push(result);
    member.last = position;
  }
}

/** The last message of a subscription that fell `MAX_UNREAD` behind. */
function fellBehind(format: FormatOptions, last: number): StreamResult {
  const error = new ApiError('LIVE_READS_LIMIT', { detail: `More than ${MAX_UNREAD} events were left unread; subscribe again with \`after\` set to this message's cursor` });
  return withCursor({ data: null, errors: [formatError(error, format)] }, last);
}

/** The last message of a subscription whose event could not be read: the error, and where to resume so that event is read again. */
function failed(error: unknown, format: FormatOptions, resumeAfter: number): StreamResult {
  return withCursor({ data: null, errors: [formatError(error, format)] }, resumeAfter);
}

function withCursor(result: StreamResult, position: number): StreamResult {
  return { ...result, extensions: { event: { cursor: String(position) } } };
}

function cursorOf(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw new ApiError('QUERY_INVALID_CURSOR', { detail: '`after` takes the `extensions.event.cursor` of a message this subscription sent' });
  }
  return Number(value);
}

/**
 * Created and updated records the image cannot answer: the subscriber's
 * list plan narrowed to the event's id and the filter, run in the database
 * as it is now (a record deleted since sends nothing).
 */
function changedRenderer(request: EventSubscription, listStep: DataStep): Feed['render'] {
  const { ctx, op, step } = request;
  return async (event) => {
    const idFilter: FilterInput = { id: { eq: event.data.id } };
    const filter = step.filter === undefined ? idFilter : { and: [step.filter, idFilter] };
    const narrowed: DataStep = { ...listStep, list: { filter, first: 1 }, filter };
    const outcome = await runOperation(ctx, { ...op, steps: [narrowed], reads: undefined }, undefined);
    return outcome.status === 304 ? undefined : messageOf(step.key, outcome.body, event);
  };
}

/**
 * How a feed turns an event into its message. Where the plan can be
 * answered from the event's image (plan/read-image.ts: the record's own
 * fields and to-one relations, rules that look at the record itself), it
 * is: the record exactly as this change left it (`record`) or found it
 * (`previous`, for a delete), whatever happened since, and no read of the
 * record. Otherwise a created or updated record is re-read; a deleted one
 * cannot be, and the subscription is refused.
 */
function rendererOf(request: EventSubscription, listStep: DataStep, live: Extract<LiveOperation, { kind: 'live' }>): Feed['render'] {
  const { step } = request;
  const plan = live.plans[0] as ReadPlan;
  const problem = imageReadProblem(plan);
  if (problem === undefined) return imageRenderer(request, live, plan, step.role.kind === 'deleted' ? 'previous' : 'record');
  if (step.role.kind === 'deleted') {
    throw new ApiError('SUBSCRIPTION_UNSUPPORTED', { detail: `${step.key} answers a record as it was before it was deleted, and ${problem}` });
  }
  return changedRenderer(request, listStep);
}

function imageRenderer(request: EventSubscription, live: Extract<LiveOperation, { kind: 'live' }>, plan: ReadPlan, image: 'record' | 'previous'): Feed['render'] {
  const { engine, context } = request.ctx;
  const readOne = async (related: ReadPlan): Promise<string | null> => {
    const result = await engine.read(related, context);
    return result.kind === 'one' ? result.json : null;
  };
  return async (event) => {
    const record = event.data[image];
    if (record === null || record === undefined) return undefined;
    const result = await readImage(plan, record, readOne);
    return messageOf(request.step.key, live.render([{ kind: 'list', ...result }]), event);
  };
}

/**
 * One event's message from a list response of at most one record, or
 * undefined when the record is not there (filtered out, or hidden from the
 * subscriber: they hear nothing of it).
 */
function messageOf(key: string, body: string, event: EventMessage): StreamResult | undefined {
  const response = JSON.parse(body) as { data?: Record<string, unknown> | null; errors?: FormattedError[] };
  const rows = response.data?.[key];
  const extensions = { event: { id: event.id, timestamp: event.timestamp, cursor: String(event.position) } };
  if (!Array.isArray(rows) || rows.length === 0) {
    // A read that failed (an outage) is the subscriber's to see; no row is no event.
    return response.errors !== undefined && response.data?.[key] === undefined ? { data: null, errors: response.errors, extensions } : undefined;
  }
  // The record's errors (a forbidden field) sit under the list's index 0: drop it, the event is one record.
  const errors = response.errors?.map((error) => (error.path === undefined ? error : { ...error, path: error.path.filter((part, i) => !(i === 1 && part === 0)) }));
  const data = { [key]: rows[0] as unknown };
  return errors === undefined ? { data, extensions } : { data, errors, extensions };
}
