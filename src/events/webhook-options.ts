import type { FilterInput } from '../plan/build-filter.js';

/** One webhook endpoint as the operator declared it (`diglot.config.json`), validated by the CLI. */
export interface WebhookOptions {
  /** How deliveries and the CLI name it; defaults to the URL. */
  readonly name: string;
  readonly url: string;
  /** Event types or patterns: `post.created`, `user.*`, `*`. */
  readonly events: readonly string[];
  /** The filter vocabulary of `?filter=` / `filter:`, over the event's record (a delete's `previous`). */
  readonly filter?: FilterInput | undefined;
  /** `whsec_…` (base64 after the prefix), as the Standard Webhooks libraries take it. */
  readonly secret: string;
  /** One attempt's limit (default 10 s). */
  readonly timeoutMs?: number | undefined;
  /** How long a delivery is retried before it is dead (default 24 h). */
  readonly retryForMs?: number | undefined;
  /** The first retry's delay, doubled each time up to an hour, with jitter (default 5 s). */
  readonly backoffMs?: number | undefined;
}

/** What the event machinery is given: frozen, validated once at the edge. */
export interface EventsOptions {
  readonly webhooks: readonly WebhookOptions[];
  /** Published events whose deliveries are finished are pruned after this long (default 7 days). */
  readonly retentionMs?: number | undefined;
  /** The safety-net poll for events and due retries (default 5 s). */
  readonly pollMs?: number | undefined;
}

export const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_FOR_MS = 24 * 3600 * 1000;
export const DEFAULT_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 3600 * 1000;
