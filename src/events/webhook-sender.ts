import type { Delivery, DeliveryAttempt, OutboxStore, StoredEvent } from '../storage/outbox.js';
import { eventPayload } from './event-message.js';
import { MAX_BACKOFF_MS } from './webhook-options.js';
import type { Endpoint } from './webhook-endpoints.js';

/** Where the sender reports what no caller waits for. pino's logger fits. */
export interface EventsLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Deliveries taken per claim: small, so a stopped instance leaves few on lease. */
const CLAIM_BATCH = 10;
/** A claim is held this much longer than an attempt may take. */
const LEASE_MARGIN_MS = 5_000;

/**
 * One endpoint's queue: one request in flight at a time, so its slowness or
 * death is its own (each endpoint has its sender). Deliveries are claimed
 * from the database, so several instances share them without sending one
 * twice, and a crash leaves them to be claimed again once the lease ends.
 */
export class WebhookSender {
  #running = false;
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #abort = new AbortController();
  #idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly endpoint: Endpoint,
    private readonly store: OutboxStore,
    private readonly logger: EventsLogger | undefined,
  ) {}

  /** Look for due deliveries now (after a publication, a retry, a poll). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    this.#idle = this.#drain()
      .catch((error: unknown) => this.logger?.warn({ err: error, endpoint: this.endpoint.name }, 'webhook delivery failed to run; retrying on the next poll'))
      .finally(() => {
        this.#running = false;
        if (this.#again && !this.#stopped) {
          this.#again = false;
          this.wake();
        }
      });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#idle;
  }

  async #drain(): Promise<void> {
    for (;;) {
      this.#again = false;
      const claimed = await this.store.claim(this.endpoint.name, CLAIM_BATCH, new Date(), this.endpoint.timeoutMs + LEASE_MARGIN_MS);
      if (claimed.length === 0) break;
      const events = new Map((await this.store.eventsBySeq(claimed.map((d) => d.eventSeq))).map((event) => [event.seq, event]));
      for (const delivery of claimed) {
        if (this.#stopped) return;
        const event = events.get(delivery.eventSeq);
        if (event !== undefined) await this.#send(delivery, event);
      }
    }
    await this.#schedule();
  }

  /** A timer for the next retry that falls due (the poll covers other instances' work). */
  async #schedule(): Promise<void> {
    const next = await this.store.nextDue(this.endpoint.name);
    clearTimeout(this.#timer);
    if (next === undefined || this.#stopped) return;
    const delay = Math.max(0, Date.parse(next) - Date.now());
    this.#timer = setTimeout(() => this.wake(), Math.min(delay, MAX_BACKOFF_MS) + 5);
    this.#timer.unref();
  }

  async #send(delivery: Delivery, event: StoredEvent): Promise<void> {
    // Sent under the name the endpoint asked for it by: an old one (`@renamed`) while its patterns use it.
    const payload = eventPayload({ ...event, type: this.endpoint.typeFor(event.type) });
    const sentAt = new Date();
    const started = performance.now();
    let outcome: DeliveryAttempt['outcome'];
    let code: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(this.endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Diglot-Webhooks/1',
          'webhook-id': event.id,
          'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
          'webhook-signature': this.endpoint.signer.sign(event.id, sentAt, payload),
        },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(this.endpoint.timeoutMs), this.#abort.signal]),
      });
      code = response.status;
      // The body is not needed; reading it would let a receiver hold the queue with a slow stream.
      await response.body?.cancel().catch(() => undefined);
      outcome = response.status >= 200 && response.status < 300 ? 'ok' : 'http';
      if (outcome === 'http') error = `HTTP ${response.status}`;
    } catch (failure) {
      // Stopping: the claim's lease ends and the delivery is taken again, here or by another instance.
      if (this.#stopped) return;
      const name = failure instanceof Error ? failure.name : '';
      outcome = name === 'TimeoutError' ? 'timeout' : 'network';
      error = outcome === 'timeout' ? `no answer within ${this.endpoint.timeoutMs} ms` : describeNetworkError(failure);
    }
    const attempt: DeliveryAttempt = {
      deliveryId: delivery.id,
      attempt: delivery.attempts + 1,
      at: sentAt.toISOString(),
      outcome,
      code,
      latencyMs: performance.now() - started,
      error,
    };
    await this.store.settle(attempt, this.#nextState(delivery, attempt));
    if (outcome !== 'ok') this.logger?.warn({ endpoint: this.endpoint.name, event: event.id, attempt: attempt.attempt, outcome, code }, 'webhook delivery failed');
  }

  /** Exponential backoff with jitter (half to all of the doubled delay), until `retryForMs` after the first attempt: then dead. */
  #nextState(delivery: Delivery, attempt: DeliveryAttempt): { status: 'pending' | 'delivered' | 'dead'; nextAt: string } {
    const now = Date.now();
    if (attempt.outcome === 'ok') return { status: 'delivered', nextAt: new Date(now).toISOString() };
    const ceiling = Math.min(this.endpoint.backoffMs * 2 ** (attempt.attempt - 1), MAX_BACKOFF_MS);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    const nextAt = now + delay;
    const started = Date.parse(delivery.firstAt);
    return { status: nextAt - started > this.endpoint.retryForMs ? 'dead' : 'pending', nextAt: new Date(nextAt).toISOString() };
  }
}

function describeNetworkError(failure: unknown): string {
  const cause = failure instanceof Error ? (failure.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (failure instanceof Error ? failure.message : String(failure));
}
