import type { FormattedError } from './format-error.js';

/** A GraphQL response as an object (`{ data?, errors?, extensions? }`), as the streaming transports send it. */
export interface StreamResult {
  readonly data?: unknown;
  readonly errors?: readonly FormattedError[];
  readonly [key: string]: unknown;
}
