import type { EventHub, EventMessage } from '../../events/event-hub.js';
import type { FilterInput } from '../../plan/build-filter.js';
import { toCamelCase } from '../../util/naming.js';
import { pushIterator, type PushIterator } from '../../util/push-iterator.js';
import type { RootStep } from './compile-operation.js';
import { runOperation, type RunContext, type RunnableOperation } from './run-operation.js';

type EventStep = Extract<RootStep, { kind: 'data' }> & { readonly role: { readonly kind: 'created' | 'updated' } };

export function isEventStep(step: RootStep): step is EventStep {
  return step.kind === 'data' && (step.role.kind === 'created' || step.role.kind === 'updated');
}

/**
 * A change-event subscription (`postCreated(filter:)`): for each published
 * event of its type and kind, the record is re-read through the subscriber's
 * own list plan, narrowed to the event's id and the subscription's filter.
 * So the read rules, field masks, the filter (on the record as it is after
 * the change, with the subscriber's view of it) and the selection apply
 * exactly as a `posts(filter:)` query would; a record the subscriber may not
 * read, or that does not match, sends nothing.
 */
export function subscribeChangeEvents<EventResult extends object>(ctx: RunContext, op: RunnableOperation, step: EventStep, hub: EventHub): PushIterator<EventResult> {
  const eventType = `${toCamelCase(step.role.type.name)}.${step.role.kind}`;
  let queue: Promise<void> = Promise.resolve();
  // `stop` is set below, before anything can end the iterator.
  const results = pushIterator<EventResult>(() => stop());
  const readOne = async (event: EventMessage): Promise<void> => {
    const idFilter: FilterInput = { id: { eq: event.data.id } };
    const filter = step.filter === undefined ? idFilter : { and: [step.filter, idFilter] };
    const listStep: RootStep = { ...step, role: { kind: 'list', type: step.role.type }, list: { filter, first: 1 }, filter };
    const outcome = await runOperation(ctx, { ...op, steps: [listStep], reads: undefined }, undefined);
    if (outcome.status === 304) return;
    const body = JSON.parse(outcome.body) as { data?: Record<string, unknown> | null; errors?: { path?: (string | number)[] }[] };
    const rows = body.data?.[step.key];
    if (!Array.isArray(rows) || rows.length === 0) {
      // A refused read (a limit, a filter over a hidden field) is the subscriber's to see; no row is no event.
      if (body.errors !== undefined && body.data?.[step.key] === undefined) results.push({ data: null, errors: body.errors } as unknown as EventResult);
      return;
    }
    // The record's errors (a forbidden field) sit under the list's index 0: drop it, the event is one record.
    const errors = body.errors?.map((error) => (error.path === undefined ? error : { ...error, path: error.path.filter((part, i) => !(i === 1 && part === 0)) }));
    const record: unknown = rows[0];
    results.push((errors === undefined ? { data: { [step.key]: record } } : { data: { [step.key]: record }, errors }) as unknown as EventResult);
  };
  const stop = hub.subscribe((events) => {
    for (const event of events) {
      if (event.type !== eventType) continue;
      // In commit order, one read at a time.
      queue = queue.then(() => readOne(event)).catch(() => undefined);
    }
  });
  return results;
}
