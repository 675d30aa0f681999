import { expect, it } from 'vitest';
import { parseConfig } from './load-config.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const hook = { url: 'https://hooks.example.com/a', events: ['post.created'], secret: SECRET };

function parse(raw: unknown, env: Record<string, string> = {}): { config: ReturnType<typeof parseConfig>; problems: string[] } {
  const problems: string[] = [];
  return { config: parseConfig(raw, env, problems), problems };
}

it('reads webhooks, names them after their URL by default, and freezes the result', () => {
  const { config, problems } = parse({ webhooks: [hook], events: { retentionDays: 2 } });
  expect(problems).toEqual([]);
  expect(config.events.webhooks).toEqual([{ ...hook, name: hook.url, filter: undefined, timeoutMs: undefined, retryForMs: undefined, backoffMs: undefined }]);
  expect(config.events.retentionMs).toBe(2 * 24 * 3600 * 1000);
  expect(Object.isFrozen(config.events.webhooks[0])).toBe(true);
});

it('refuses unknown keys at every level, with a suggestion', () => {
  const { problems } = parse({ webhook: [], events: { retentionDay: 1 }, webhooks: [{ ...hook, evnets: [] }] });
  expect(problems).toEqual([
    'webhook: unknown key; did you mean "webhooks"?',
    'events.retentionDay: unknown key; did you mean "retentionDays"?',
    'webhooks[0].evnets: unknown key; did you mean "events"?',
  ]);
});

it('takes a secret from the environment, and says which variable is missing', () => {
  expect(parse({ webhooks: [{ ...hook, secret: { env: 'HOOK_SECRET' } }] }, { HOOK_SECRET: SECRET }).config.events.webhooks[0]?.secret).toBe(SECRET);
  expect(parse({ webhooks: [{ ...hook, secret: { env: 'HOOK_SECRET' } }] }).problems).toEqual(['webhooks[0].secret: the environment variable HOOK_SECRET is not set']);
  expect(parse({ webhooks: [{ ...hook, secret: 'plain' }] }).problems[0]).toMatch(/must start with "whsec_"/);
});

it('collects every problem of a bad endpoint in one pass', () => {
  const { problems } = parse({ webhooks: [{ url: 'ftp://x', events: [], filter: [], secret: SECRET, timeoutMs: -1 }] });
  expect(problems).toEqual([
    'webhooks[0].url: must be an http:// or https:// URL',
    'webhooks[0].events: must be a non-empty list of event types or patterns, such as ["post.created", "user.*"]',
    'webhooks[0].filter: must be a filter object, as in ?filter= ({"status": {"eq": "PUBLISHED"}})',
    'webhooks[0].timeoutMs: must be a positive number',
  ]);
});
