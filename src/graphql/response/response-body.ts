import type { FormattedError } from './format-error.js';

/**
 * `{"errors":[…],"data":…}` as text. `data` is JSON text (spliced, not
 * re-serialised: most of it was built by the database); undefined leaves the
 * entry out, as a request error must (GraphQL spec §7.1.1).
 */
export function responseBody(errors: readonly FormattedError[], data: string | undefined): string {
  const parts: string[] = [];
  if (errors.length > 0) parts.push(`"errors":${JSON.stringify(errors)}`);
  if (data !== undefined) parts.push(`"data":${data}`);
  return `{${parts.join(',')}}`;
}
