import { retryAfterFor } from '../../errors/registry.js';
import type { FormattedError } from './format-error.js';

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * `Retry-After` (RFC 9110 §10.2.3) for a response whose errors include an
 * outage (a 503 code in the registry) or a rate limit: the longest wait any of them asks
 * for; no header otherwise. GraphQL answers such errors with 200, but a
 * client or proxy still learns when to try again.
 */
export function retryAfterHeader(errors: readonly FormattedError[]): Readonly<Record<string, string>> {
  let seconds: number | undefined;
  for (const error of errors) {
    const wait = retryAfterFor(error.extensions.code, error.extensions);
    if (wait !== undefined && (seconds === undefined || wait > seconds)) seconds = wait;
  }
  return seconds === undefined ? NONE : { 'retry-after': String(seconds) };
}
