import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import { EVENTS_CHANNEL } from '../events/event-hub.js';
import { checkEndpoint } from '../events/webhook-endpoints.js';
import { DEFAULT_BACKOFF_MS, DEFAULT_RETRY_FOR_MS, DEFAULT_TIMEOUT_MS, MAX_BACKOFF_MS, type WebhookOptions } from '../events/webhook-options.js';
import { definitionOf, type EndpointDefinition, type WebhookRegistry } from '../events/webhook-registry.js';
import type { Model } from '../schema/model.js';
import type { OutboxStore } from '../storage/outbox.js';
import type { EndpointChange, StoredEndpoint } from '../storage/webhook-endpoints.js';
import { AdminInput } from './admin-input.js';

/** An endpoint as the admin API shows it: never its secret. */
export interface EndpointView {
  readonly name: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly filter: unknown;
  readonly source: 'config' | 'database';
  readonly paused: boolean;
  readonly timeoutMs: number;
  readonly retryForMs: number;
  readonly backoffMs: number;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
  readonly deliveries: { readonly pending: number; readonly delivered: number; readonly dead: number };
}

/** An endpoint with the secret the server just made or was given: in the answer that sets it, and never again. */
export type EndpointWithSecret = EndpointView & { readonly secret: string };

export interface WebhookEndpointAdmin {
  list(): Promise<EndpointView[]>;
  get(name: string): Promise<EndpointView>;
  create(input: unknown): Promise<EndpointWithSecret>;
  /** The endpoint after the change; with `secret` when the change made a new one (`rotateSecret`). */
  update(name: string, input: unknown): Promise<EndpointView | EndpointWithSecret>;
  remove(name: string): Promise<void>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const FIELDS = ['url', 'events', 'filter', 'secret', 'paused', 'timeoutMs', 'retryForMs', 'backoffMs'];
const MAX_TIMEOUT_MS = 120_000;
const MAX_RETRY_FOR_MS = 30 * 24 * 3600 * 1000;

/**
 * Webhook endpoints kept in the database: added, changed, paused and
 * removed at run time, effective at once here and on every instance (the
 * registry reloads and tells the others). The configuration file's are
 * listed beside them, read-only.
 */
export function createWebhookEndpointAdmin(model: Model, registry: WebhookRegistry, outbox: OutboxStore): WebhookEndpointAdmin {
  const { store } = registry;
  const views = async (definitions: readonly EndpointDefinition[]): Promise<EndpointView[]> => {
    const counts = await outbox.counts();
    return definitions.map((definition) => viewOf(definition, (status) => counts.find((row) => row.endpoint === definition.name && row.status === status)?.count ?? 0));
  };
  const definitions = async (): Promise<EndpointDefinition[]> => {
    // The configuration file's as the registry holds them; the database's as stored now (one that no longer fits the schema too).
    const configured = registry.current().filter((entry) => entry.definition.source === 'config').map((entry) => entry.definition);
    return [...configured, ...(await store.list()).map(definitionOf)];
  };
  const get = async (name: string): Promise<EndpointView> => {
    const found = (await definitions()).find((definition) => definition.name === name);
    if (found === undefined) throw new ApiError('NOT_FOUND', { detail: `No webhook endpoint is named ${name}` });
    return (await views([found]))[0] as EndpointView;
  };
  const writable = (name: string): void => {
    if (registry.configured(name)) {
      throw new ApiError('WEBHOOK_ENDPOINT_READ_ONLY', { detail: `The endpoint ${name} comes from the configuration file: change it there, and restart` });
    }
  };
  return {
    list: async () => views(await definitions()),
    get,
    async create(body) {
      const input = new AdminInput(body, ['name', ...FIELDS]);
      const name = input.text('name', { required: true, shape: NAME, hint: 'use up to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit' });
      const change = readChange(input, true);
      const secret = change.secret ?? newSecret();
      const candidate = { ...change, name: name ?? '', secret, url: change.url ?? '', events: change.events ?? [] };
      if (name !== undefined && change.url !== undefined && change.events !== undefined) checkAgainstModel(model, input, { ...candidate, filter: change.filter as WebhookOptions['filter'] });
      input.done();
      const at = new Date().toISOString();
      const taken = (): ApiError =>
        new ApiError('UNIQUE_VIOLATION', { detail: `There is already a webhook endpoint named ${candidate.name}`, errors: [{ pointer: '/name', code: 'UNIQUE_VIOLATION', detail: 'is taken' }] });
      if (registry.configured(candidate.name)) throw taken();
      const stored: StoredEndpoint = { ...candidate, filter: change.filter, paused: change.paused ?? false, timeoutMs: change.timeoutMs, retryForMs: change.retryForMs, backoffMs: change.backoffMs, createdAt: at, updatedAt: at };
      if (!(await store.insert(stored))) throw taken();
      await registry.changed(EVENTS_CHANNEL);
      return { ...(await get(candidate.name)), secret };
    },
    async update(name, body) {
      writable(name);
      const input = new AdminInput(body, [...FIELDS, 'rotateSecret']);
      const change = readChange(input, false);
      const rotate = input.flag('rotateSecret') === true;
      if (rotate && change.secret !== undefined) input.problem('/rotateSecret', 'VALIDATION_FAILED', 'give either a secret or rotateSecret, not both');
      const current = await store.get(name);
      if (current === undefined) throw new ApiError('NOT_FOUND', { detail: `No webhook endpoint is named ${name}` });
      const secret = rotate ? newSecret() : change.secret;
      const next = { ...current, ...change, ...(secret === undefined ? {} : { secret }) };
      checkAgainstModel(model, input, { ...next, filter: next.filter as WebhookOptions['filter'] });
      input.done();
      const updated = await store.update(name, secret === undefined ? change : { ...change, secret }, new Date().toISOString());
      if (updated === undefined) throw new ApiError('NOT_FOUND', { detail: `No webhook endpoint is named ${name}` });
      await registry.changed(EVENTS_CHANNEL);
      const view = await get(name);
      return rotate && secret !== undefined ? { ...view, secret } : view;
    },
    async remove(name) {
      writable(name);
      if (!(await store.remove(name, new Date().toISOString()))) throw new ApiError('NOT_FOUND', { detail: `No webhook endpoint is named ${name}` });
      await registry.changed(EVENTS_CHANNEL);
    },
  };
}

/** The members of a create or change, checked for type and range (`required`: url and events must be there). */
function readChange(input: AdminInput, required: boolean): EndpointChange {
  const change: { -readonly [K in keyof EndpointChange]: EndpointChange[K] } = {};
  const url = input.text('url', { required, max: 2000, hint: 'must be an http or https URL' });
  if (url !== undefined) {
    if (isHttpUrl(url)) change.url = url;
    else input.problem('/url', 'VALIDATION_FAILED', 'must be an http or https URL');
  }
  if (input.has('events')) {
    const events = input.raw('events');
    if (!Array.isArray(events) || events.length === 0 || events.some((pattern) => typeof pattern !== 'string' || pattern === '')) {
      input.problem('/events', 'INPUT_WRONG_TYPE', 'must be a non-empty list of event types or patterns, such as ["post.created", "user.*"]');
    } else change.events = events as string[];
  } else if (required) input.problem('/events', 'INPUT_REQUIRED_FIELD', 'is required');
  if (input.has('filter')) {
    const filter = input.raw('filter');
    if (filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) input.problem('/filter', 'INPUT_WRONG_TYPE', 'must be a filter object, or null for none');
    else change.filter = filter ?? undefined;
  }
  const secret = input.text('secret', { required: false, max: 200 });
  if (secret !== undefined) change.secret = secret;
  const paused = input.flag('paused');
  if (paused !== undefined) change.paused = paused;
  const timeoutMs = input.integer('timeoutMs', 1, MAX_TIMEOUT_MS);
  if (timeoutMs !== undefined) change.timeoutMs = timeoutMs;
  const retryForMs = input.integer('retryForMs', 0, MAX_RETRY_FOR_MS);
  if (retryForMs !== undefined) change.retryForMs = retryForMs;
  const backoffMs = input.integer('backoffMs', 1, MAX_BACKOFF_MS);
  if (backoffMs !== undefined) change.backoffMs = backoffMs;
  return change;
}

/** What only the model can say: patterns that match no event type, a filter on fields a type lacks, a secret that is not one. */
function checkAgainstModel(model: Model, input: AdminInput, options: WebhookOptions): void {
  for (const problem of checkEndpoint(model, options).problems) input.problem(problem.pointer, 'VALIDATION_FAILED', problem.detail);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function viewOf(definition: EndpointDefinition, count: (status: 'pending' | 'delivered' | 'dead') => number): EndpointView {
  return {
    name: definition.name,
    url: definition.url,
    events: definition.events,
    filter: definition.filter ?? null,
    source: definition.source,
    paused: definition.paused,
    timeoutMs: definition.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retryForMs: definition.retryForMs ?? DEFAULT_RETRY_FOR_MS,
    backoffMs: definition.backoffMs ?? DEFAULT_BACKOFF_MS,
    createdAt: definition.createdAt ?? null,
    updatedAt: definition.updatedAt ?? null,
    deliveries: { pending: count('pending'), delivered: count('delivered'), dead: count('dead') },
  };
}
