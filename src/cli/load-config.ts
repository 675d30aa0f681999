import type { ConfigFile } from './config/read-config-file.js';
import { UnusableOptionsError } from './config/command-options.js';
import type { FilterInput } from '../plan/build-filter.js';
import type { EventsOptions, WebhookOptions } from '../events/webhook-options.js';
import { suggest } from '../util/suggest.js';

/**
 * `diglot.config.json`'s webhooks and event retention
 * (docs/events.md). Read and checked once here, then frozen; a key the
 * loader does not know is an error with a suggestion, never ignored.
 */
export interface DiglotConfig {
  readonly events: EventsOptions;
}

/** The configuration file's keys this module reads. */
export const SECTIONS = ['webhooks', 'events'] as const;
const EVENTS_KEYS = ['retentionDays', 'pollMs'] as const;
const WEBHOOK_KEYS = ['name', 'url', 'events', 'filter', 'secret', 'timeoutMs', 'retryForMs', 'backoffMs'] as const;

/**
 * The webhooks and event options of the configuration file (its `webhooks`
 * and `events` sections; the other keys are options, read by
 * resolve-options.ts). `env` supplies secrets named as `{ "env": "NAME" }`.
 */
export function eventsConfigOf(file: ConfigFile | undefined, env: Readonly<Record<string, string | undefined>>): DiglotConfig {
  const sections = Object.fromEntries(SECTIONS.flatMap((key) => (file?.values[key] === undefined ? [] : [[key, file.values[key]]])));
  const problems: string[] = [];
  const config = parseConfig(sections, env, problems);
  if (problems.length > 0) throw new UnusableOptionsError(problems.map((problem) => `${file?.path ?? ''}: ${problem}`));
  return config;
}

export function parseConfig(raw: unknown, env: Readonly<Record<string, string | undefined>>, problems: string[]): DiglotConfig {
  const top = objectAt(raw, '(the file)', problems) ?? {};
  checkKeys(top, SECTIONS, '', problems);
  const events = objectAt(top['events'] ?? {}, 'events', problems) ?? {};
  checkKeys(events, EVENTS_KEYS, 'events.', problems);
  const retentionDays = positive(events['retentionDays'], 'events.retentionDays', problems);
  const pollMs = positive(events['pollMs'], 'events.pollMs', problems);
  const list = top['webhooks'] ?? [];
  if (!Array.isArray(list)) problems.push('webhooks: must be a list of endpoints');
  const webhooks = (Array.isArray(list) ? list : []).flatMap((item: unknown, i) => webhookAt(item, `webhooks[${i}]`, env, problems) ?? []);
  return Object.freeze({
    events: Object.freeze({
      webhooks: Object.freeze(webhooks),
      ...(retentionDays === undefined ? {} : { retentionMs: retentionDays * 24 * 3600 * 1000 }),
      ...(pollMs === undefined ? {} : { pollMs }),
    }),
  });
}

function webhookAt(item: unknown, where: string, env: Readonly<Record<string, string | undefined>>, problems: string[]): WebhookOptions | undefined {
  const hook = objectAt(item, where, problems);
  if (hook === undefined) return undefined;
  const before = problems.length;
  checkKeys(hook, WEBHOOK_KEYS, `${where}.`, problems);
  const url = hook['url'];
  if (typeof url !== 'string' || !/^https?:\/\//.test(url) || !URL.canParse(url)) problems.push(`${where}.url: must be an http:// or https:// URL`);
  const events = hook['events'];
  if (!Array.isArray(events) || events.length === 0 || !events.every((event) => typeof event === 'string' && event !== '')) {
    problems.push(`${where}.events: must be a non-empty list of event types or patterns, such as ["post.created", "user.*"]`);
  }
  const name = hook['name'] ?? url;
  if (typeof name !== 'string' || name === '') problems.push(`${where}.name: must be a non-empty string`);
  const filter = hook['filter'];
  if (filter !== undefined && (typeof filter !== 'object' || filter === null || Array.isArray(filter))) {
    problems.push(`${where}.filter: must be a filter object, as in ?filter= ({"status": {"eq": "PUBLISHED"}})`);
  }
  const secret = secretAt(hook['secret'], `${where}.secret`, env, problems);
  const timeoutMs = positive(hook['timeoutMs'], `${where}.timeoutMs`, problems);
  const retryForMs = positive(hook['retryForMs'], `${where}.retryForMs`, problems);
  const backoffMs = positive(hook['backoffMs'], `${where}.backoffMs`, problems);
  if (problems.length > before) return undefined;
  return Object.freeze({
    name: name as string,
    url: url as string,
    events: Object.freeze([...(events as string[])]),
    filter: filter === undefined ? undefined : (deepFreeze(filter) as FilterInput),
    secret: secret as string,
    timeoutMs,
    retryForMs,
    backoffMs,
  });
}

/** `"whsec_…"` as is, or `{ "env": "NAME" }` for a secret kept out of the file. */
function secretAt(value: unknown, where: string, env: Readonly<Record<string, string | undefined>>, problems: string[]): string | undefined {
  if (typeof value === 'string') {
    if (!value.startsWith('whsec_')) problems.push(`${where}: must start with "whsec_" (a Standard Webhooks secret), or be {"env": "NAME"}`);
    return value;
  }
  const ref = objectAt(value, where, problems);
  if (ref === undefined) return undefined;
  checkKeys(ref, ['env'], `${where}.`, problems);
  const name = ref['env'];
  if (typeof name !== 'string') {
    problems.push(`${where}.env: must name an environment variable`);
    return undefined;
  }
  const secret = env[name];
  if (secret === undefined || secret === '') problems.push(`${where}: the environment variable ${name} is not set`);
  else if (!secret.startsWith('whsec_')) problems.push(`${where}: ${name} must start with "whsec_"`);
  return secret;
}

function objectAt(value: unknown, where: string, problems: string[]): Record<string, unknown> | undefined {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  problems.push(`${where}: must be an object`);
  return undefined;
}

function checkKeys(object: Record<string, unknown>, known: readonly string[], prefix: string, problems: string[]): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const hint = suggest(key, known);
    problems.push(`${prefix}${key}: unknown key${hint === undefined ? ` (known: ${known.join(', ')})` : `; did you mean "${hint}"?`}`);
  }
}

function positive(value: unknown, where: string, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    problems.push(`${where}: must be a positive number`);
    return undefined;
  }
  return value;
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
