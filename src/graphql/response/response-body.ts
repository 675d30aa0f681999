import type { DeprecatedUse } from '../../plan/deprecated-use.js';
import type { FormattedError } from './format-error.js';

/**
 * `{"errors":[…],"data":…}` as text. `data` is JSON text (spliced, not
 * re-serialised: most of it was built by the database); undefined leaves the
 * entry out, as a request error must (GraphQL spec §7.1.1).
 */
export function responseBody(errors: readonly FormattedError[], data: string | undefined, deprecations: readonly DeprecatedUse[] = []): string {
  const parts: string[] = [];
  if (errors.length > 0) parts.push(`"errors":${JSON.stringify(errors)}`);
  if (data !== undefined) parts.push(`"data":${data}`);
  if (deprecations.length > 0) parts.push(`"extensions":{"deprecations":${JSON.stringify(deprecations.map(deprecationEntry))}}`);
  return `{${parts.join(',')}}`;
}

/**
 * One entry of `extensions.deprecations`: what the operation used that is
 * deprecated, the same facts REST sends as headers (its `kind`, the schema
 * coordinate, the reason and the sunset date, null when none is set).
 */
function deprecationEntry(use: DeprecatedUse): Record<string, string | null> {
  return { kind: use.kind, coordinate: use.coordinate, reason: use.reason, sunset: use.sunset ?? null };
}
