import type { Model } from '../../schema/model.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { ComponentNames } from './component-names.js';
import { ref, type JsonSchema, type Operation, type Parameter, type PathItem, type Response } from './openapi-types.js';
import { credentialRequired } from './security-schemes.js';

export const ADMIN_TAG = 'Admin';

const text = { type: 'string' } as const;
const nullableText = { type: ['string', 'null'] } as const;
const time = { type: 'string', format: 'date-time' } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const integer = { type: 'integer' } as const;
const flag = { type: 'boolean' } as const;
const object = (properties: Record<string, JsonSchema>, required: readonly string[] = Object.keys(properties)): JsonSchema => ({ type: 'object', properties, required: [...required] });
const listOf = (schema: JsonSchema): JsonSchema => object({ data: { type: 'array', items: schema } });

const API_KEY = object({ id: text, name: text, role: text, createdAt: time, revokedAt: nullableTime });
const ENDPOINT_FIELDS: Record<string, JsonSchema> = {
  name: text,
  url: { type: 'string', format: 'uri' },
  events: { type: 'array', items: text },
  filter: { description: 'The ?filter= vocabulary over the event’s record; null for none.' },
  source: { type: 'string', enum: ['config', 'database'] },
  paused: flag,
  timeoutMs: integer,
  retryForMs: integer,
  backoffMs: integer,
  createdAt: nullableTime,
  updatedAt: nullableTime,
  deliveries: object({ pending: integer, delivered: integer, dead: integer }),
};
const ENDPOINT = object(ENDPOINT_FIELDS);
const ENDPOINT_INPUT: Record<string, JsonSchema> = {
  url: { type: 'string', format: 'uri', description: 'http or https.' },
  events: { type: 'array', items: text, minItems: 1, description: 'Event types or patterns: post.created, user.*, *.' },
  filter: { type: ['object', 'null'] },
  secret: { type: 'string', description: 'whsec_…; made by the server when left out at creation.' },
  paused: flag,
  timeoutMs: integer,
  retryForMs: integer,
  backoffMs: integer,
};
const DELIVERY = object({
  id: text,
  endpoint: text,
  eventId: text,
  eventType: text,
  status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
  attemptCount: integer,
  nextAt: time,
  firstAt: time,
  doneAt: nullableTime,
  lastCode: { type: ['integer', 'null'] },
  lastError: nullableText,
  attempts: { type: 'array', items: object({ attempt: integer, at: time, outcome: { type: 'string', enum: ['ok', 'http', 'timeout', 'network'] }, code: { type: ['integer', 'null'] }, latencyMs: integer, error: nullableText }) },
});
const SUSPENSION = object({ accountId: text, suspended: flag, reason: nullableText });

/**
 * The admin API's REST routes (rest/admin-routes.ts, docs/admin-api.md),
 * and the change stream at `eventsPath`, which is for everyone.
 */
export function adminPaths(model: Model, names: ComponentNames, eventsPath: string): Record<string, PathItem> {
  const problem = (codes: string, why: string): Response => ({ description: `${why} Codes: ${codes}.`, content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', names.problem) } } });
  const refusals = {
    '401': ref('responses', 'Unauthenticated'),
    '403': problem('FORBIDDEN', 'The caller does not hold the admin role; nothing was looked at.'),
    '429': ref('responses', 'TooManyRequests'),
    '503': ref('responses', 'ServiceUnavailable'),
  };
  const json = (description: string, schema: JsonSchema, status = '200'): Record<string, Response> => ({
    [status]: { description, headers: { 'Cache-Control': ref('headers', 'Cache-Control') }, content: { 'application/json': { schema } } },
  });
  const pathParameter = (name: string, description: string): Parameter => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
  const query = (name: string, description: string, schema: JsonSchema): Parameter => ({ name, in: 'query', required: false, description, schema });
  const body = (schema: JsonSchema): Operation['requestBody'] => ({ description: 'As JSON.', required: true, content: { 'application/json': { schema } } });
  const operation = (operationId: string, summary: string, responses: Record<string, Response | ReturnType<typeof ref>>, extra: Partial<Operation> = {}): Operation => ({
    operationId,
    summary,
    description: `${summary}. Admin role only (docs/admin-api.md); the same action as GraphQL's \`admin…\` field.`,
    tags: [ADMIN_TAG],
    security: credentialRequired(),
    ...extra,
    responses: { ...refusals, ...responses },
  });
  const invalid = { '400': ref('responses', 'BadRequest'), '415': ref('responses', 'UnsupportedMediaType') };
  const notFound = { '404': ref('responses', 'NotFound') };
  const id = pathParameter('id', 'The id.');
  const name = pathParameter('name', 'The endpoint’s name.');
  const paths: Record<string, PathItem> = {
    '/admin/api-keys': {
      get: operation('adminListApiKeys', 'Every API key, never the key itself', json('The keys, oldest first.', listOf(API_KEY))),
      post: operation('adminCreateApiKey', 'Make an API key', { ...json('The key; `key` is shown this once.', { ...object({ ...(API_KEY.properties as Record<string, JsonSchema>), key: text }) }, '201'), ...invalid, '409': ref('responses', 'Conflict') }, { requestBody: body(object({ name: text, role: text })) }),
    },
    '/admin/api-keys/{id}': {
      get: operation('adminGetApiKey', 'One API key', { ...json('The key.', API_KEY), ...notFound }, { parameters: [id] }),
      delete: operation('adminRevokeApiKey', 'Revoke an API key, at once on every instance', { ...json('The key, revoked.', API_KEY), ...notFound }, { parameters: [id] }),
    },
    '/admin/webhooks': {
      get: operation('adminListWebhookEndpoints', 'Every webhook endpoint, never a secret', json('The configuration file’s, then the database’s.', listOf(ENDPOINT))),
      post: operation('adminCreateWebhookEndpoint', 'Add a webhook endpoint', { ...json('The endpoint; `secret` is shown this once.', object({ ...ENDPOINT_FIELDS, secret: text }), '201'), ...invalid, '409': ref('responses', 'Conflict') }, {
        requestBody: body(object({ name: text, ...ENDPOINT_INPUT }, ['name', 'url', 'events'])),
      }),
    },
    '/admin/webhooks/{name}': {
      get: operation('adminGetWebhookEndpoint', 'One webhook endpoint', { ...json('The endpoint.', ENDPOINT), ...notFound }, { parameters: [name] }),
      patch: operation('adminUpdateWebhookEndpoint', 'Change, pause or resume a webhook endpoint kept in the database', { ...json('The endpoint; with `secret` after `rotateSecret`.', ENDPOINT), ...invalid, ...notFound, '409': problem('WEBHOOK_ENDPOINT_READ_ONLY', 'The endpoint is the configuration file’s.') }, {
        parameters: [name],
        requestBody: body(object({ ...ENDPOINT_INPUT, rotateSecret: flag }, [])),
      }),
      delete: operation('adminDeleteWebhookEndpoint', 'Remove a webhook endpoint kept in the database', { '204': { description: 'Removed; its pending deliveries are dead.' }, ...notFound, '409': problem('WEBHOOK_ENDPOINT_READ_ONLY', 'The endpoint is the configuration file’s.') }, { parameters: [name] }),
    },
    '/admin/webhooks/{name}/deliveries': {
      get: operation('adminListEndpointDeliveries', 'An endpoint’s deliveries with their attempts, newest first', { ...json('The deliveries.', listOf(DELIVERY)), ...invalid }, {
        parameters: [name, query('status', 'pending, delivered or dead.', text), query('limit', 'At most 500 (50 by default).', integer)],
      }),
    },
    '/admin/webhooks/{name}/replay': {
      post: operation('adminReplayEvents', 'Send kept events again to an endpoint: one by id, or those created in a time range', { ...json('Deliveries queued.', object({ queued: integer }), '202'), ...invalid, ...notFound }, {
        parameters: [name],
        requestBody: body(object({ eventId: text, since: time, until: time }, [])),
      }),
    },
    '/admin/deliveries': {
      get: operation('adminListDeliveries', 'Deliveries across endpoints (status=dead: the dead letters)', { ...json('The deliveries.', listOf(DELIVERY)), ...invalid }, {
        parameters: [query('status', 'pending, delivered or dead.', text), query('endpoint', 'One endpoint’s.', text), query('limit', 'At most 500 (50 by default).', integer)],
      }),
    },
    '/admin/deliveries/{id}/retry': {
      post: operation('adminRetryDelivery', 'Send a delivery again now, a dead one too', { ...json('The delivery, pending again.', DELIVERY, '202'), ...notFound }, { parameters: [id] }),
    },
    '/admin/schema': {
      get: operation('adminGetSchema', 'The schema as written, the generated GraphQL SDL and the model for a diagram', json('The schema.', object({ sdl: { type: 'array', items: object({ file: text, text }) }, graphql: text, model: { type: 'object' } }))),
    },
    [eventsPath]: {
      get: {
        operationId: 'streamChangeEvents',
        summary: 'The change events, live (Server-Sent Events)',
        description:
          'Each committed change as `event: <type>` with `id: <cursor>` and `data: { id, type, timestamp, data: { id, record | previous } }`, the record as the caller may read it (the read rules apply to every event). ' +
          '`types` picks event types (patterns such as post.*); `Last-Event-ID` or `after` resumes after a cursor while the events are kept. Send `Accept: text/event-stream`.',
        tags: [ADMIN_TAG],
        parameters: [query('types', 'Event types or patterns, comma-separated (default: all).', text), query('after', 'Resume after this cursor.', text)],
        responses: {
          '200': { description: 'The stream.', content: { 'text/event-stream': { schema: text } } },
          '400': ref('responses', 'BadRequest'),
          '401': ref('responses', 'Unauthenticated'),
          '406': problem('NOT_ACCEPTABLE', 'The request did not accept text/event-stream.'),
          '429': ref('responses', 'TooManyRequests'),
          '503': ref('responses', 'ServiceUnavailable'),
        },
      },
    },
  };
  if (model.account?.suspended !== undefined) {
    const account = pathParameter('id', `The ${model.account.type}’s id.`);
    paths['/admin/accounts/{id}/suspension'] = {
      get: operation('adminGetSuspension', 'Whether an account is suspended', { ...json('The state.', SUSPENSION), ...notFound }, { parameters: [account] }),
      put: operation('adminSuspendAccount', 'Suspend an account: its sessions and streams end at once', { ...json('The state.', SUSPENSION), ...invalid, ...notFound }, {
        parameters: [account],
        requestBody: { description: 'As JSON (optional).', required: false, content: { 'application/json': { schema: object({ reason: text }, []) } } },
      }),
      delete: operation('adminUnsuspendAccount', 'Lift an account’s suspension', { ...json('The state.', SUSPENSION), ...notFound }, { parameters: [account] }),
    };
  }
  return paths;
}
