import type { Deprecation } from './model.js';
import type { DirectiveUse } from './read-directives.js';
import type { ProblemList } from './schema-problem.js';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `@deprecated(reason:, since:, sunset:)` on a field, type, enum value or
 * argument, or undefined when it is not there. The dates must be ISO
 * calendar dates that exist (`2027-02-30` is not one), and a sunset cannot
 * come before the deprecation; each mistake is reported where it is written.
 */
export function readDeprecation(uses: ReadonlyMap<string, DirectiveUse>, problems: ProblemList): Deprecation | undefined {
  const use = uses.get('deprecated');
  if (use === undefined) return undefined;
  const reason = typeof use.values['reason'] === 'string' ? use.values['reason'] : 'No longer supported';
  const since = dateArgument(use, 'since', problems);
  const sunset = dateArgument(use, 'sunset', problems);
  if (since !== undefined && sunset !== undefined && sunset < since) {
    problems.at(use.argumentNodes.get('sunset') ?? use.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@deprecated sunset ${sunset} comes before since ${since}.`);
  }
  return { reason, since, sunset };
}

function dateArgument(use: DirectiveUse, name: 'since' | 'sunset', problems: ProblemList): string | undefined {
  const value = use.values[name];
  if (typeof value !== 'string') return undefined;
  if (isCalendarDate(value)) return value;
  problems.at(
    use.argumentNodes.get(name) ?? use.node,
    'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
    `@deprecated ${name} must be an ISO calendar date such as "2027-06-30"; "${value}" is not one.`,
  );
  return undefined;
}

/** `YYYY-MM-DD` naming a day that exists. */
export function isCalendarDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The members a field or type keeps of its `@deprecated`: the reason, and the dates when it is deprecated. */
export function deprecationMembers(
  uses: ReadonlyMap<string, DirectiveUse>,
  problems: ProblemList,
): { readonly deprecated: string | undefined; readonly deprecatedDates?: { readonly since: string | undefined; readonly sunset: string | undefined } } {
  const deprecation = readDeprecation(uses, problems);
  if (deprecation === undefined) return { deprecated: undefined };
  return { deprecated: deprecation.reason, deprecatedDates: { since: deprecation.since, sunset: deprecation.sunset } };
}
