import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertAdmin, type AdminService } from '../admin/admin-service.js';
import { contextOf } from '../auth/request-principal.js';
import { ApiError } from '../errors/api-error.js';
import type { RequestContext } from '../plan/request-context.js';
import { searchOf } from '../util/http-request.js';
import { methodNotAllowed } from './route-helpers.js';

/** Where the admin API lives: no type's collection can be here (collections are plurals). */
export const ADMIN_PREFIX = '/admin';

type Handler = (context: RequestContext, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
type Params = Readonly<Record<string, string>>;

/**
 * The admin API's REST resources (docs/admin-api.md): each route reads its
 * parameters and body and calls the admin service GraphQL's `admin…` fields
 * call too, so both styles refuse, validate and answer alike. Answers are
 * never stored by caches (`no-store`): they are the admin's alone, and some
 * carry a secret shown once.
 */
export function registerAdminRoutes(app: FastifyInstance, admin: AdminService): void {
  const routes = new Map<string, Map<string, Handler>>();
  const on = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, handler: Handler): void => {
    const url = `${ADMIN_PREFIX}${path}`;
    let methods = routes.get(url);
    if (methods === undefined) routes.set(url, (methods = new Map<string, Handler>()));
    methods.set(method, handler);
    app.route({
      method,
      url,
      // Before the body is read or parsed: whatever a stranger sends (a bad media type, malformed JSON), the answer is the same refusal.
      onRequest: (request, _reply, done) => {
        try {
          assertAdmin(contextOf(request));
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
      handler: async (request, reply) => {
        const answer = await handler(contextOf(request), request, reply);
        reply.header('cache-control', 'no-store');
        if (answer === undefined) return reply.code(204).send();
        return reply.type('application/json').send(JSON.stringify(answer));
      },
    });
  };
  const params = (request: FastifyRequest): Params => request.params as Params;
  const created = (reply: FastifyReply, location: string): void => {
    reply.code(201).header('location', location);
  };

  on('GET', '/api-keys', async (context) => ({ data: await admin.apiKeys(context) }));
  on('POST', '/api-keys', async (context, request, reply) => {
    const key = await admin.createApiKey(context, jsonBody(request));
    created(reply, `${ADMIN_PREFIX}/api-keys/${key.id}`);
    return key;
  });
  on('GET', '/api-keys/:id', (context, request) => admin.apiKey(context, params(request)['id'] ?? ''));
  on('DELETE', '/api-keys/:id', (context, request) => admin.revokeApiKey(context, params(request)['id'] ?? ''));

  if (admin.suspensions) {
    on('GET', '/accounts/:id/suspension', (context, request) => admin.suspension(context, params(request)['id'] ?? ''));
    on('PUT', '/accounts/:id/suspension', (context, request) => admin.suspend(context, params(request)['id'] ?? '', jsonBody(request, true)));
    on('DELETE', '/accounts/:id/suspension', (context, request) => admin.unsuspend(context, params(request)['id'] ?? ''));
  }

  on('GET', '/webhooks', async (context) => ({ data: await admin.webhookEndpoints(context) }));
  on('POST', '/webhooks', async (context, request, reply) => {
    const endpoint = await admin.createWebhookEndpoint(context, jsonBody(request));
    created(reply, `${ADMIN_PREFIX}/webhooks/${encodeURIComponent(endpoint.name)}`);
    return endpoint;
  });
  on('GET', '/webhooks/:name', (context, request) => admin.webhookEndpoint(context, params(request)['name'] ?? ''));
  on('PATCH', '/webhooks/:name', (context, request) => admin.updateWebhookEndpoint(context, params(request)['name'] ?? '', jsonBody(request)));
  on('DELETE', '/webhooks/:name', (context, request) => admin.deleteWebhookEndpoint(context, params(request)['name'] ?? ''));
  on('GET', '/webhooks/:name/deliveries', async (context, request) => ({
    data: await admin.deliveries(context, { ...deliveryQuery(request, ['status', 'limit']), endpoint: params(request)['name'] ?? '' }),
  }));
  on('POST', '/webhooks/:name/replay', async (context, request, reply) => {
    const answer = await admin.replayEvents(context, params(request)['name'] ?? '', jsonBody(request));
    reply.code(202);
    return answer;
  });
  on('GET', '/deliveries', async (context, request) => ({ data: await admin.deliveries(context, deliveryQuery(request, ['status', 'limit', 'endpoint'])) }));
  on('POST', '/deliveries/:id/retry', async (context, request, reply) => {
    const delivery = await admin.retryDelivery(context, params(request)['id'] ?? '');
    reply.code(202);
    return delivery;
  });
  on('GET', '/schema', (context) => admin.schema(context));

  for (const [url, methods] of routes) methodNotAllowed(app, url, [...methods.keys(), ...(methods.has('GET') ? ['HEAD'] : [])]);
}

/** `?status=&limit=&endpoint=` as the service reads them (a limit in digits as a number); any other parameter is reported. */
function deliveryQuery(request: FastifyRequest, allowed: readonly string[]): Readonly<Record<string, unknown>> {
  const query: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(searchOf(request.url))) {
    query[name] = name === 'limit' && /^\d{1,6}$/.test(value) ? Number(value) : value;
    if (!allowed.includes(name)) throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `Unknown query parameter ${name}; allowed: ${allowed.join(', ')}` });
  }
  return query;
}

/** The JSON body; with `optional`, none at all is an empty object. */
function jsonBody(request: FastifyRequest, optional = false): unknown {
  const body: unknown = request.body;
  if (optional && (body === undefined || body === null || body === '')) return {};
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json') {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'Send the body as application/json', extensions: { accept: ['application/json'] } });
  }
  return body;
}
