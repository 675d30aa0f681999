import { Webhook } from 'standardwebhooks';
import { ApiError } from '../errors/api-error.js';
import { buildFilter } from '../plan/build-filter.js';
import { matchesFilter } from '../plan/match-filter.js';
import type { Filter, Param } from '../plan/read-plan.js';
import { mergeDeprecations, type DeprecatedUse } from '../plan/deprecated-use.js';
import { renamedEventUses } from '../plan/deprecations.js';
import { renamedEventTypes, typeEventTypes, type RenamedEventType } from '../schema/event-names.js';
import type { Model, ResourceType } from '../schema/model.js';
import type { StoredEvent } from '../storage/outbox.js';
import { suggest } from '../util/suggest.js';
import { DEFAULT_BACKOFF_MS, DEFAULT_RETRY_FOR_MS, DEFAULT_TIMEOUT_MS, type WebhookOptions } from './webhook-options.js';

/** An endpoint ready to route and sign: its patterns and filter checked against the model. */
export interface Endpoint {
  readonly name: string;
  readonly url: string;
  readonly signer: Webhook;
  readonly timeoutMs: number;
  readonly retryForMs: number;
  readonly backoffMs: number;
  /** Whether the endpoint wants this event (its type, then its filter over the record). */
  wants(event: StoredEvent): boolean;
  /** The type this endpoint is sent an event under: the one published, or the old name it asked for it by (`@renamed`). */
  typeFor(eventType: string): string;
  /** The old names (`@renamed`) its patterns use, as deprecated uses: it is told so (the log), as a client is. */
  readonly deprecations: readonly DeprecatedUse[];
}

/** What the accounts flows announce (src/auth/accounts/): their payload, with the link to send, is the event's record. */
const ACCOUNT_EVENT_TYPES = ['account.password_reset_requested', 'account.verification_requested'];

/** Every event type the model can produce: `<type>.created|updated|deleted`, `<type>.<list>.added|removed`, and the accounts flows' own. */
export function eventTypesOf(model: Model): Map<string, ResourceType> {
  const types = new Map<string, ResourceType>();
  const account = model.account === undefined ? undefined : model.typesByName.get(model.account.type);
  if (account !== undefined) for (const type of ACCOUNT_EVENT_TYPES) types.set(type, account);
  for (const type of model.types) for (const name of typeEventTypes(type)) types.set(name, type);
  return types;
}

/**
 * The published event types these patterns ask for only by an old name
 * (`@renamed`): each with the old name it is sent under. A type a pattern
 * also names by its current name (`*`, `item.*`) is sent under that.
 */
function oldNamesAskedFor(model: Model, patterns: readonly string[]): Map<string, { readonly oldName: string; readonly renamed: RenamedEventType }> {
  const asked = new Map<string, { readonly oldName: string; readonly renamed: RenamedEventType }>();
  for (const [oldName, renamed] of renamedEventTypes(model)) {
    if (asked.has(renamed.current) || patterns.some((pattern) => patternMatches(pattern, renamed.current))) continue;
    if (patterns.some((pattern) => patternMatches(pattern, oldName))) asked.set(renamed.current, { oldName, renamed });
  }
  return asked;
}

export function patternMatches(pattern: string, type: string): boolean {
  return pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));
}

/** A problem with one endpoint's options: where (an RFC 6901 pointer into them) and what. */
export interface EndpointProblem {
  readonly pointer: string;
  readonly detail: string;
}

/**
 * Checks each endpoint against the model (patterns that match no event
 * type, filters on fields a covered type lacks) and prepares it. Throws one
 * Error listing every problem.
 */
export function compileEndpoints(model: Model, webhooks: readonly WebhookOptions[]): Endpoint[] {
  const known = eventTypesOf(model);
  const problems: string[] = [];
  const endpoints: Endpoint[] = [];
  const names = new Set<string>();
  webhooks.forEach((options, i) => {
    const where = `webhooks[${i}] (${options.name})`;
    if (names.has(options.name)) problems.push(`${where}: another webhook has the name ${options.name}; give each a distinct "name"`);
    names.add(options.name);
    const endpoint = compileEndpoint(model, known, options, (problem) => problems.push(`${where}: ${problem.detail}`));
    if (endpoint !== undefined) endpoints.push(endpoint);
  });
  if (problems.length > 0) throw new Error(`webhook configuration:\n  ${problems.join('\n  ')}`);
  return endpoints;
}

/** One endpoint checked against the model: every problem, or none and the endpoint ready to route and sign. */
export function checkEndpoint(model: Model, options: WebhookOptions): { readonly endpoint: Endpoint | undefined; readonly problems: readonly EndpointProblem[] } {
  const problems: EndpointProblem[] = [];
  const endpoint = compileEndpoint(model, eventTypesOf(model), options, (problem) => problems.push(problem));
  return { endpoint: problems.length === 0 ? endpoint : undefined, problems };
}

function compileEndpoint(model: Model, known: Map<string, ResourceType>, options: WebhookOptions, report: (problem: EndpointProblem) => void): Endpoint | undefined {
  const covered = new Set<ResourceType>();
  const patterns = options.events;
  const byOldName = oldNamesAskedFor(model, patterns);
  options.events.forEach((pattern, i) => {
    const matched = [...known].filter(([type]) => patternMatches(pattern, type));
    const old = [...byOldName.values()].filter((entry) => patternMatches(pattern, entry.oldName));
    if (matched.length === 0 && old.length === 0) {
      const hint = suggest(pattern, [...known.keys(), ...new Set([...known.keys()].map((type) => `${type.slice(0, type.indexOf('.'))}.*`))]);
      report({ pointer: `/events/${i}`, detail: `"${pattern}" matches no event type${hint === undefined ? '' : `; did you mean "${hint}"?`}` });
    }
    for (const [, type] of matched) covered.add(type);
    for (const entry of old) covered.add(entry.renamed.type);
  });
  const filters = new Map<string, { filter: Filter; params: unknown[] }>();
  if (options.filter !== undefined) {
    for (const type of covered) {
      const params: unknown[] = [];
      try {
        const filter = buildFilter({ model, param: (value): Param => ({ param: params.push(value) - 1 }), fromText: false, path: 'filter' }, type, options.filter);
        filters.set(type.name, { filter, params });
      } catch (error) {
        const detail = error instanceof ApiError ? (error.detail ?? error.message) : String(error);
        report({ pointer: '/filter', detail: `its filter does not apply to ${type.name} events: ${detail}` });
      }
    }
  }
  let signer: Webhook | undefined;
  try {
    signer = new Webhook(options.secret);
  } catch {
    report({ pointer: '/secret', detail: 'the secret is not a Standard Webhooks secret ("whsec_" and base64)' });
  }
  if (signer === undefined) return undefined;
  const deprecations = mergeDeprecations([...byOldName.values()].map((entry) => renamedEventUses(entry.renamed)));
  return Object.freeze({
    name: options.name,
    url: options.url,
    signer,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retryForMs: options.retryForMs ?? DEFAULT_RETRY_FOR_MS,
    backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
    deprecations,
    typeFor: (eventType: string): string => byOldName.get(eventType)?.oldName ?? eventType,
    wants: (event: StoredEvent): boolean => {
      if (!patterns.some((pattern) => patternMatches(pattern, event.type)) && !byOldName.has(event.type)) return false;
      const type = known.get(event.type);
      const compiled = type === undefined ? undefined : filters.get(type.name);
      if (options.filter === undefined) return true;
      if (compiled === undefined) return false;
      const image = event.record ?? event.previous;
      return image !== null && matchesFilter(compiled.filter, compiled.params, JSON.parse(image) as Record<string, unknown>);
    },
  });
}
