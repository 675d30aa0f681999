import { ApiError } from '../errors/api-error.js';
import type { DeliveryRecord, WebhookAdmin } from '../events/webhook-admin.js';
import type { WebhookRegistry } from '../events/webhook-registry.js';
import type { DeliveryAttempt, DeliveryStatus } from '../storage/outbox.js';
import { AdminInput } from './admin-input.js';

/** A delivery with its attempts, as the admin API shows it. */
export interface DeliveryView {
  readonly id: string;
  readonly endpoint: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  readonly attemptCount: number;
  readonly nextAt: string;
  readonly firstAt: string;
  readonly doneAt: string | null;
  readonly lastCode: number | null;
  readonly lastError: string | null;
  readonly attempts: readonly Omit<DeliveryAttempt, 'deliveryId'>[];
}

export interface DeliveryQuery {
  readonly endpoint?: string | undefined;
  readonly status?: string | undefined;
  readonly limit?: number | undefined;
}

export interface DeliveryAdmin {
  list(query: DeliveryQuery): Promise<DeliveryView[]>;
  retry(id: string): Promise<DeliveryView>;
  replay(endpoint: string, input: unknown): Promise<{ readonly queued: number }>;
}

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];
export const DEFAULT_DELIVERY_LIMIT = 50;
export const MAX_DELIVERY_LIMIT = 500;

/** Deliveries and their attempts, retried and replayed by hand (what `diglot webhooks` does, for the admin API). */
export function createDeliveryAdmin(webhooks: WebhookAdmin, registry: WebhookRegistry): DeliveryAdmin {
  const withAttempts = async (found: readonly DeliveryRecord[]): Promise<DeliveryView[]> => {
    const attempts = await webhooks.attemptsOf(found.map((delivery) => delivery.id));
    return found.map((delivery) => viewOf(delivery, attempts.get(delivery.id) ?? []));
  };
  return {
    async list(query) {
      const input = new AdminInput(query, ['endpoint', 'status', 'limit']);
      const status = input.text('status', { required: false, hint: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
      if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) input.problem('/status', 'VALIDATION_FAILED', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
      const limit = input.integer('limit', 1, MAX_DELIVERY_LIMIT) ?? DEFAULT_DELIVERY_LIMIT;
      input.done();
      return withAttempts(await webhooks.deliveries({ endpoint: query.endpoint, status: status as DeliveryStatus | undefined, limit }));
    },
    async retry(id) {
      if (!(await webhooks.retry(id))) throw new ApiError('NOT_FOUND', { detail: `No delivery has the id ${id}` });
      const delivery = await webhooks.delivery(id);
      if (delivery === undefined) throw new ApiError('NOT_FOUND', { detail: `No delivery has the id ${id}` });
      return (await withAttempts([delivery]))[0] as DeliveryView;
    },
    async replay(endpoint, body) {
      const input = new AdminInput(body, ['eventId', 'since', 'until']);
      const eventId = input.text('eventId', { required: false, max: 100 });
      const since = input.time('since', false);
      const until = input.time('until', false);
      if (!input.has('eventId') && !input.has('since')) {
        input.problem('', 'INPUT_REQUIRED_FIELD', 'give eventId, or since (and until)');
      } else if (input.has('eventId') && (input.has('since') || input.has('until'))) {
        input.problem('/eventId', 'VALIDATION_FAILED', 'give eventId, or since (and until), not both');
      }
      input.done();
      if (!registry.current().some((entry) => entry.endpoint.name === endpoint)) throw new ApiError('NOT_FOUND', { detail: `No webhook endpoint is named ${endpoint}` });
      const queued = await webhooks.replayTo(endpoint, eventId !== undefined ? { eventId } : { since: since as Date, until });
      return { queued };
    },
  };
}

function viewOf(delivery: DeliveryRecord, attempts: readonly DeliveryAttempt[]): DeliveryView {
  return {
    id: delivery.id,
    endpoint: delivery.endpoint,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attemptCount: delivery.attempts,
    nextAt: delivery.nextAt,
    firstAt: delivery.firstAt,
    doneAt: delivery.doneAt,
    lastCode: delivery.lastCode,
    lastError: delivery.lastError,
    attempts: attempts.map(({ deliveryId: _deliveryId, ...attempt }) => attempt),
  };
}
