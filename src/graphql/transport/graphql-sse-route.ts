import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult } from 'graphql';
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fastify';
import { contextOf } from '../../auth/request-principal.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import type { RequestContext } from '../../plan/request-context.js';
import type { GraphqlHandler, StreamResult } from '../handle-graphql.js';
import { paramsFromJson } from '../http/graphql-params.js';
import { SseBackpressure } from './sse-backpressure.js';

/** Formatted results (plain JSON), which the library sends as they are. */
function once(result: StreamResult): AsyncIterable<ExecutionResult> {
  // eslint-disable-next-line @typescript-eslint/require-await -- an async generator is the shortest async iterable of one
  return (async function* () {
    yield result as unknown as ExecutionResult;
  })();
}

/**
 * Single-connection streams (a PUT) a client may hold reserved at once:
 * graphql-sse keeps a reservation until its stream connects and closes, so
 * unbounded PUTs would hold memory for ever.
 */
const MAX_RESERVATIONS_PER_CLIENT = 8;

/** Streams open now, ended when the server closes. */
export type OpenSseStreams = Set<FastifyReply>;

/**
 * GraphQL over Server-Sent Events (the graphql-sse protocol, both its
 * distinct-connections and single-connection modes), with every operation
 * going through the handler's own pipeline (`operate`): a subscription is a
 * live query, sent now and on every change. Each operation runs with the
 * context of the request that carried it (set at the edge as for any other
 * route): its principal, budget and method — a stream opened by GET runs no
 * mutation.
 */
export function createGraphqlSseRoute(handler: GraphqlHandler, streams: OpenSseStreams): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  /** The token made for a request that brought none (a PUT's is its reservation). */
  const made = new WeakMap<object, string>();
  /** Reserved tokens, with the client that reserved each, and how many each client holds. */
  const reservations = new Map<string, string>();
  const held = new Map<string, number>();
  const hold = (client: string, by: number): void => {
    const count = (held.get(client) ?? 0) + by;
    if (count > 0) held.set(client, count);
    else held.delete(client);
  };
  const backpressure = new SseBackpressure();
  /** The stream token a request names, or the one made for it. */
  const tokenOf = (request: FastifyRequest): string | undefined => {
    const header = request.headers[TOKEN_HEADER_KEY];
    return (Array.isArray(header) ? header.join('') : header) || new URL(request.url, 'http://localhost/').searchParams.get(TOKEN_QUERY_KEY) || made.get(request);
  };
  const sse = createHandler({
    // The library's default reads the token through its Fastify adapter, which turns an absent header into the string
    // "undefined": every client would share one stream token, and one PUT would take over everyone's subscriptions.
    authenticate: (req) => {
      const token = tokenOf(req.raw);
      if (token !== undefined) return token;
      const fresh = randomUUID();
      made.set(req.raw, fresh);
      return fresh;
    },
    onSubscribe: async (req, params) => {
      const request = req.raw;
      let outcome;
      try {
        outcome = await handler.operate({ params: paramsFromJson(params), context: streamContext(contextOf(request)) });
      } catch (error) {
        // Parameters the pipeline refused before running (a batch, a non-object): a request error.
        if (!isApiError(error)) throw error;
        return once({ errors: [{ message: error.detail ?? error.title, extensions: { code: error.code } }] });
      }
      // A single result goes as a stream of one: graphql-sse takes an object without `data` (a request error) for execution arguments.
      if (outcome.kind === 'single') return once(outcome.result);
      // A request that is its own stream (distinct connections) has a token made for it by now; a single-connection operation names its stream's.
      const token = tokenOf(request) ?? '';
      return backpressure.throttle(token, outcome.results) as unknown as AsyncIterable<ExecutionResult>;
    },
  });
  return async (request, reply) => {
    const client = contextOf(request).client.key;
    if (request.method === 'PUT' && (held.get(client) ?? 0) >= MAX_RESERVATIONS_PER_CLIENT) {
      throw new ApiError('LIVE_READS_LIMIT', { detail: `At most ${MAX_RESERVATIONS_PER_CLIENT} reserved streams per client; connect or close one first` });
    }
    const header = request.headers[TOKEN_HEADER_KEY];
    const given = typeof header === 'string' ? reservations.get(header) : undefined;
    if (request.method === 'GET' && given !== undefined && typeof header === 'string') {
      // Once the reserved stream has been connected and closes, the library lets it go, and so does its client's count.
      reply.raw.once('close', () => {
        if (reply.raw.statusCode !== 200 || !reservations.has(header)) return;
        reservations.delete(header);
        hold(given, -1);
      });
    }
    // graphql-sse writes the response itself.
    reply.hijack();
    streams.add(reply);
    // A request that accepts an event stream gets one (graphql-sse's own test); an operation's POST to a reserved stream does not.
    if (request.headers.accept === 'text/event-stream') backpressure.watch(reply.raw, () => tokenOf(request));
    try {
      await sse(request, reply);
      const reserved = made.get(request);
      if (request.method === 'PUT' && reply.raw.statusCode === 201 && reserved !== undefined) {
        reservations.set(reserved, client);
        hold(client, 1);
      }
    } catch (error) {
      request.log.error({ err: error }, 'graphql-sse failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end();
    } finally {
      streams.delete(reply);

    }
  };
}

/** The request's context, as the transport that carries the operation. */
function streamContext(context: RequestContext): RequestContext {
  return { ...context, site: { ...context.site, transport: 'graphql-sse' } };
}
