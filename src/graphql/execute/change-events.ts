import { ApiError } from '../../errors/api-error.js';
import { ChangeSubscriptions, eventCursor, type PlannedFeed } from '../../events/change-subscriptions.js';
import type { EventHub, EventMessage } from '../../events/event-hub.js';
import type { FilterInput } from '../../plan/build-filter.js';
import { askerKey } from '../../plan/principal.js';
import { unlimitedMeter } from '../../plan/request-context.js';
import { imageReadProblem, readImage } from '../../plan/read-image.js';
import type { ReadPlan } from '../../plan/read-plan.js';
import { recordEventType } from '../../schema/event-names.js';
import { resolveType } from '../../schema/renamed.js';
import type { PushIterator } from '../../util/push-iterator.js';
import { formatError, type FormattedError } from '../response/format-error.js';
import type { StreamResult } from '../response/stream-result.js';
import type { RootStep } from './compile-operation.js';
import { liveOperation, runOperation, type LiveOperation, type RunContext, type RunnableOperation } from './run-operation.js';

type DataStep = Extract<RootStep, { kind: 'data' }>;
type EventKind = 'created' | 'updated' | 'deleted';
type EventStep = DataStep & { readonly role: { readonly kind: EventKind } };

export function isEventStep(step: RootStep): step is EventStep {
  return step.kind === 'data' && (step.role.kind === 'created' || step.role.kind === 'updated' || step.role.kind === 'deleted');
}

/** A change-event subscription as the GraphQL handler asks for it. */
export interface EventSubscription {
  readonly ctx: RunContext;
  readonly op: RunnableOperation;
  readonly step: EventStep;
  /** Released when the subscription ends (its place under the live-read limits). */
  readonly onEnd: () => void;
}

type Render = (event: EventMessage) => Promise<StreamResult | undefined>;

/**
 * Change-event subscriptions (`postCreated(filter:)`, `postUpdated`,
 * `postDeleted`) in GraphQL's framing: each published event of the type and
 * kind becomes one message with the subscriber's selection of the record,
 * as that subscriber may read it (docs/live-reads.md). Feeds, cursors,
 * replay and falling behind are the shared change subscriptions'
 * (events/change-subscriptions.ts); what is GraphQL's is here:
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
  readonly #subscriptions: ChangeSubscriptions<StreamResult>;

  constructor(hub: EventHub, usage: Pick<EventSubscription['ctx']['engine']['deprecationUsage'], 'record'>) {
    this.#subscriptions = new ChangeSubscriptions(hub, usage);
  }

  /**
   * Throws (an ApiError, or SubscriptionRefused) when the question cannot
   * be subscribed to: over a limit, a selection a deleted record cannot
   * answer, a cursor whose events are no longer kept. Nothing is held then.
   */
  async subscribe(request: EventSubscription): Promise<PushIterator<StreamResult>> {
    const { ctx, step } = request;
    const after = eventCursor(step.args['after']);
    // A renamed type's old field (`productCreated`, `@renamed`) hears the events published under its new name; its plan reports the old name.
    const named = step.role.type.name;
    const eventType = recordEventType(resolveType(ctx.engine.model, named)?.type.name ?? named, step.role.kind);
    // What decides the message: the question (key, the name it was asked by, selection, filter) and whose view it is.
    const key = `${JSON.stringify([eventType, named, step.key, step.filter ?? null, step.select])} ${askerKey(ctx.engine.model, ctx.context.principal)}`;
    const subscribed = await this.#subscriptions.subscribe({
      key,
      eventType,
      after,
      context: ctx.context,
      plan: () => planFeed(request),
      ended: (error, cursor) => withCursor({ data: null, errors: [formatError(error, ctx.format)] }, cursor),
      onEnd: request.onEnd,
    });
    return subscribed.results;
  }
}

/** The question planned now, so a question over the limits, or one a deleted record cannot answer, is refused when subscribing. */
function planFeed(request: EventSubscription): PlannedFeed<StreamResult> {
  const { ctx, op, step } = request;
  const listStep: DataStep = { ...step, role: { kind: 'list', type: step.role.type }, list: { filter: step.filter, first: 1 }, filter: step.filter, args: {} };
  const live = liveOperation(ctx, { ...op, steps: [listStep], reads: undefined });
  if (live.kind === 'failed') throw new SubscriptionRefused(live.body);
  return {
    cost: ctx.engine.readCost(live.plans),
    deprecations: live.deprecations,
    renderer: () => {
      // The feed reads for all its subscribers: with the first one's view, charged to nobody's request (each paid when subscribing).
      const shared: EventSubscription = { ...request, ctx: { ...ctx, context: { ...ctx.context, meter: unlimitedMeter() } } };
      return rendererOf(shared, listStep, live);
    },
  };
}

/** A subscription refused while planning: the GraphQL response saying why (no data). */
export class SubscriptionRefused extends Error {
  constructor(readonly body: string) {
    super('subscription refused');
  }
}

function withCursor(result: StreamResult, position: number): StreamResult {
  return { ...result, extensions: { event: { cursor: String(position) } } };
}

/**
 * Created and updated records the image cannot answer: the subscriber's
 * list plan narrowed to the event's id and the filter, run in the database
 * as it is now (a record deleted since sends nothing).
 */
function changedRenderer(request: EventSubscription, listStep: DataStep): Render {
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
function rendererOf(request: EventSubscription, listStep: DataStep, live: Extract<LiveOperation, { kind: 'live' }>): Render {
  const { step } = request;
  const plan = live.plans[0] as ReadPlan;
  const problem = imageReadProblem(plan);
  if (problem === undefined) return imageRenderer(request, live, plan, step.role.kind === 'deleted' ? 'previous' : 'record');
  if (step.role.kind === 'deleted') {
    throw new ApiError('SUBSCRIPTION_UNSUPPORTED', { detail: `${step.key} answers a record as it was before it was deleted, and ${problem}` });
  }
  return changedRenderer(request, listStep);
}

function imageRenderer(request: EventSubscription, live: Extract<LiveOperation, { kind: 'live' }>, plan: ReadPlan, image: 'record' | 'previous'): Render {
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
  const response = JSON.parse(body) as { data?: Record<string, unknown> | null; errors?: FormattedError[]; extensions?: { deprecations?: readonly object[] } };
  const rows = response.data?.[key];
  // Each message is a whole response, which a client may read alone: it says what deprecated things the subscription uses, as a live query's do.
  const deprecations = response.extensions?.deprecations;
  const extensions = { event: { id: event.id, timestamp: event.timestamp, cursor: String(event.position) }, ...(deprecations === undefined ? {} : { deprecations }) };
  if (!Array.isArray(rows) || rows.length === 0) {
    // A read that failed (an outage) is the subscriber's to see; no row is no event.
    return response.errors !== undefined && response.data?.[key] === undefined ? { data: null, errors: response.errors, extensions } : undefined;
  }
  // The record's errors (a forbidden field) sit under the list's index 0: drop it, the event is one record.
  const errors = response.errors?.map((error) => (error.path === undefined ? error : { ...error, path: error.path.filter((part, i) => !(i === 1 && part === 0)) }));
  const data = { [key]: rows[0] as unknown };
  return errors === undefined ? { data, extensions } : { data, errors, extensions };
}
