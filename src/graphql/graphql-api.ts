import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { printSchema } from 'graphql';
import { contextOf } from '../auth/request-principal.js';
import type { Engine } from '../engine/engine.js';
import type { Accounts } from '../auth/accounts/accounts.js';
import type { AdminService } from '../admin/admin-service.js';
import type { EventHub } from '../events/event-hub.js';
import { ApiError } from '../errors/api-error.js';
import { apiErrorOf } from '../errors/framework-error.js';
import { header, pathOf, searchOf } from '../util/http-request.js';
import type { PlanLimits } from '../plan/build-read.js';
import type { Model } from '../schema/model.js';
import type { AssetStore } from '../util/asset-store.js';
import { buildGraphqlSchema } from './schema/build-schema.js';
import { createGraphqlHandler, type GraphqlHttpResponse, type JsonMedia } from './handle-graphql.js';
import { resolveGraphqlOptions, type GraphqlOptions } from './graphql-options.js';
import { graphiqlPage } from './http/graphiql-page.js';
import { paramsFromBody, paramsFromSearch } from './http/graphql-params.js';
import { checkPreflightHeader, paramsFromMultipart } from './http/multipart-request.js';
import { HTML_MEDIA, JSON_MEDIA, negotiate } from './http/negotiate.js';
import { formatError, type FormatOptions } from './response/format-error.js';
import { responseBody } from './response/response-body.js';
import { attachGraphqlWs, type SocketEdge } from './transport/graphql-ws-server.js';
import { createGraphqlSseRoute, type OpenSseStreams } from './transport/graphql-sse-route.js';
import { addVary, setHeaders } from '../util/vary.js';

export type { GraphqlLimits, GraphqlOptions, PersistedDocumentsOptions } from './graphql-options.js';
export { DEFAULT_GRAPHQL_LIMITS } from './graphql-options.js';

/** The generated schema as SDL (for `diglot` commands, docs and clients' code generators). */
export function printGraphqlSchema(model: Model): string {
  return printSchema(buildGraphqlSchema(model).schema);
}

export interface GraphqlApiOptions {
  readonly engine: Engine;
  readonly limits: PlanLimits;
  readonly graphql?: GraphqlOptions;
  /** The HTTP edge's side of WebSockets: with it, /graphql also takes WebSocket upgrades (graphql-ws), whose credential arrives in `connection_init`. */
  readonly sockets?: SocketEdge;
  /** Largest message a WebSocket accepts, in bytes (the JSON body limit). */
  readonly maxMessageBytes?: number;
  /** The accounts flows behind `me` and the accounts mutations, when a type is marked `@account`. */
  readonly accounts?: Accounts | undefined;
  /** The event hub behind change-event subscriptions (made after the routes, hence a getter). */
  readonly events?: (() => EventHub | undefined) | undefined;
  /** Where GraphiQL's page puts its scripts and styles (served by the server under /assets/). */
  readonly assets: AssetStore;
  /** The admin API behind the `admin…` fields (docs/admin-api.md). */
  readonly admin?: AdminService | undefined;
}

const ENDPOINT = '/graphql';
/** GraphQL over SSE (graphql-sse) has its own URL too, for clients that do not send `Accept: text/event-stream` on /graphql. */
const STREAM_ENDPOINT = '/graphql/stream';
/** The methods /graphql answers (its `Allow`); every other one is a 405. */
export const GRAPHQL_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'OPTIONS'];

/**
 * The query style at `/graphql` (GraphQL over HTTP): POST with an
 * application/json body, GET for queries (cacheable: ETag, Cache-Control,
 * 304), GraphiQL for browsers. Its own body parser and error handler, so
 * every failure here, even one Fastify raises before the handler, answers in
 * GraphQL's shape rather than problem+json.
 */
export function registerGraphqlApi(app: FastifyInstance, options: GraphqlApiOptions): void {
  const resolved = resolveGraphqlOptions(options.graphql);
  const handler = createGraphqlHandler(options.engine, options.limits, resolved, options.accounts, options.events, options.admin);
  const graphiql = graphiqlPage(ENDPOINT, options.engine.model, options.assets);
  const sseStreams: OpenSseStreams = new Set();
  const sse = createGraphqlSseRoute(handler, sseStreams);
  app.addHook('preClose', (done) => {
    // A stream never ends by itself: end it before the server waits for its connections.
    for (const reply of [...sseStreams]) reply.raw.destroy();
    done();
  });
  if (options.sockets !== undefined) {
    attachGraphqlWs(app, { path: ENDPOINT, handler, edge: options.sockets, maxPayload: options.maxMessageBytes ?? 1024 * 1024 });
  }

  app.register((scope, _pluginOptions, done) => {
    // The body arrives as text: parsing it here turns bad JSON into a GraphQL error, not a problem document.
    // Of the root's other parsers only multipart/form-data stays: the upload spec (the server registers it with a file store).
    scope.removeContentTypeParser(['application/json', 'text/plain', 'application/merge-patch+json']);
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, parsed) => {
      parsed(null, body);
    });

    scope.setErrorHandler((raw: FastifyError | Error, request, reply) => {
      // Fastify's envelope errors as registered codes; anything else stays as it is, to be masked as INTERNAL.
      const error = apiErrorOf(raw) ?? raw;
      void send(reply, handler.httpError(error, mediaOf(request), request.log));
    });

    scope.route({
      method: ['GET', 'POST'],
      url: ENDPOINT,
      handler: async (request, reply) => {
        // GraphQL over SSE, negotiated (graphql-sse's distinct-connections mode).
        if (header(request, 'accept')?.includes('text/event-stream') === true) return sse(request, reply);
        const method = request.method === 'POST' ? 'POST' : 'GET';
        const media = negotiate(header(request, 'accept'), method === 'GET' && resolved.graphiql);
        if (media === undefined) {
          throw new ApiError('NOT_ACCEPTABLE', {
            detail: 'This endpoint answers in application/graphql-response+json or application/json',
            extensions: { accept: ['application/graphql-response+json', 'application/json'] },
          });
        }
        if (media === HTML_MEDIA) {
          addVary(reply, 'Accept');
          return reply.code(200).header('content-type', 'text/html; charset=utf-8').send(await graphiql());
        }
        if (method === 'POST' && header(request, 'content-type') === undefined) {
          throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'Send the request as application/json' });
        }
        if (method === 'POST' && options.engine.files !== undefined && request.isMultipart()) {
          checkPreflightHeader(request.headers);
          // Every file received is kept only if the operation's writes point a record at it.
          const context = contextOf(request);
          let refused: GraphqlHttpResponse | undefined;
          const uploaded = await options.engine
            .withUploads(context, async (receive) => {
              const multipartParams = await paramsFromMultipart(request.parts(), receive, async (params) => {
                refused = await handler.refuseUploads({ method, params, media, ifNoneMatch: undefined, context });
                if (refused !== undefined) throw new UploadsRefused();
              });
              return handler.handle({ method, params: multipartParams, media, ifNoneMatch: undefined, context });
            })
            .catch((error: unknown) => {
              if (error instanceof UploadsRefused && refused !== undefined) return refused;
              throw error;
            });
          return send(reply, uploaded);
        }
        if (method === 'POST' && typeof request.body !== 'string') {
          // Parsed by a parser the root added for REST bodies, not by ours: not a GraphQL request body.
          throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'Send the request as application/json (or multipart/form-data with files)' });
        }
        const params = method === 'POST' ? paramsFromBody(request.body) : paramsFromSearch(searchOf(request.url));
        const response = await handler.handle({
          method,
          params,
          media,
          ifNoneMatch: header(request, 'if-none-match'),
          ifModifiedSince: header(request, 'if-modified-since'),
          context: contextOf(request),
        });
        return send(reply, response);
      },
    });

    scope.route({ method: ['GET', 'POST', 'PUT', 'DELETE'], url: STREAM_ENDPOINT, handler: sse });

    // The one place that says which methods /graphql takes (CORS preflights will build on it).
    scope.route({
      method: 'OPTIONS',
      url: ENDPOINT,
      handler: (_request, reply) => reply.code(204).header('allow', GRAPHQL_METHODS.join(', ')).send(),
    });
    scope.route({
      method: scope.supportedMethods.filter((method) => !GRAPHQL_METHODS.includes(method)),
      url: ENDPOINT,
      handler: () => {
        throw new ApiError('METHOD_NOT_ALLOWED', { detail: 'GraphQL takes GET (queries) and POST', extensions: { allow: GRAPHQL_METHODS } });
      },
    });
    done();
  });
}

/** Thrown out of the multipart reader to stop at the first file of a request `refuseUploads` answered. */
class UploadsRefused extends Error {}

function send(reply: FastifyReply, response: GraphqlHttpResponse): FastifyReply {
  setHeaders(reply.code(response.status), response.headers);
  return reply.send(response.body);
}

/** The media type an error answers in: negotiated when possible, JSON otherwise. */
function mediaOf(request: FastifyRequest): JsonMedia {
  return errorMedia(header(request, 'accept'));
}

function errorMedia(accept: string | undefined): JsonMedia {
  const media = negotiate(accept, false);
  return media === undefined || media === HTML_MEDIA ? JSON_MEDIA : media;
}

/** Whether a request target is the GraphQL endpoint (its path, trailing slash or not). */
export function isGraphqlTarget(url: string): boolean {
  const path = pathOf(url);
  return path === ENDPOINT || path === `${ENDPOINT}/`;
}

/**
 * An error about a /graphql request that no route answers (the server
 * refused it at the socket, before Fastify saw it), in GraphQL's shape.
 */
export function graphqlErrorResponse(error: ApiError, accept: string | undefined): GraphqlHttpResponse {
  return {
    status: error.status,
    headers: { 'content-type': `${errorMedia(accept)}; charset=utf-8`, 'cache-control': 'no-store' },
    body: responseBody([formatError(error, EDGE_FORMAT)], undefined),
  };
}

/** Only INTERNAL errors are logged, and nothing refuses a request at the socket with one. */
const EDGE_FORMAT: FormatOptions = { hideSuggestions: true, exposeInternals: false, log: { error: () => undefined } };
