import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { apiErrorOf } from '../errors/framework-error.js';
import { pathOf } from '../util/http-request.js';
import { retryAfterFor } from '../errors/registry.js';
import { GRAPHQL_METHODS, isGraphqlTarget } from '../graphql/graphql-api.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from '../rest/problem.js';
import { challengeFor } from '../auth/www-authenticate.js';
import { edgeResponse } from './edge-response.js';
import { DEFAULT_LINGER, lingerAfterResponse, type LingerLimits } from './lingering-close.js';

export interface ErrorHandlingOptions {
  readonly exposeInternals: boolean;
  /** How much of an unread body is drained before closing (DEFAULT_LINGER when not given). */
  readonly linger?: LingerLimits;
}

/**
 * Everything that goes wrong ends here as problem+json with a registered
 * code. Fastify's own envelope errors (media type, body size, malformed JSON)
 * are translated; anything unknown is INTERNAL with an error id, its stack
 * going to the log and never to the client. A 503 says when to retry.
 *
 * An error answered before its request body has all arrived (in either
 * front-end: the hook below runs before any scope's error handler) closes
 * the connection, but only after reading the rest (see lingering-close.ts),
 * so that the client gets to read the answer.
 */
export function installErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions): void {
  app.addHook('onError', (request, reply, _error, done) => {
    closeAfterUnreadBody(request, reply, options.linger ?? DEFAULT_LINGER);
    done();
  });

  app.setErrorHandler((raw: FastifyError | Error, request, reply) => {
    // Fastify's envelope errors as registered codes; anything unknown is INTERNAL.
    const error = apiErrorOf(raw) ?? new ApiError('INTERNAL');
    if (error.code === 'INTERNAL') {
      const errorId = randomUUID();
      request.log.error({ err: raw, errorId }, 'internal error');
      const internal = new ApiError('INTERNAL', {
        detail: options.exposeInternals ? raw.message : `Something went wrong on our side; quote error id ${errorId}`,
        extensions: { errorId },
      });
      void reply.code(500).type(PROBLEM_CONTENT_TYPE).send(problemOf(internal, request.url));
      return;
    }
    const allow = error.extensions['allow'];
    if (Array.isArray(allow)) void reply.header('allow', allow.join(', '));
    const retryAfter = retryAfterFor(error.code, error.extensions);
    if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
    // RFC 9110 §15.5.2: every 401 carries a challenge, a route's own (GET /me unsigned, a wrong password) too.
    if (error.status === 401 && !reply.hasHeader('www-authenticate')) void reply.header('www-authenticate', challengeFor(error, request.headers.authorization) ?? 'Bearer');
    if (error.status >= 500) request.log.warn({ code: error.code, detail: error.detail }, 'service unavailable');
    void reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(problemOf(error, request.url));
  });

  app.setNotFoundHandler((request, reply) => {
    closeAfterUnreadBody(request, reply, options.linger ?? DEFAULT_LINGER);
    if (isGraphqlTarget(request.url)) {
      // A method Fastify routes nowhere (PROPFIND, say): GraphQL's 405, in its shape.
      const refusal = new ApiError('METHOD_NOT_ALLOWED', { detail: 'GraphQL takes GET (queries) and POST', extensions: { allow: GRAPHQL_METHODS } });
      const answer = edgeResponse(refusal, { url: request.url, headers: request.headers });
      void reply.code(answer.status).headers(answer.headers).header('allow', GRAPHQL_METHODS.join(', ')).send(answer.body);
      return;
    }
    const error = new ApiError('ROUTE_NOT_FOUND', { detail: `No route ${request.method} ${pathOf(request.url)}` });
    void reply.code(404).type(PROBLEM_CONTENT_TYPE).send(problemOf(error, request.url));
  });
}

/** An answer going out before the request body has all arrived ends the connection, once the rest is read. */
export function closeAfterUnreadBody(request: FastifyRequest, reply: FastifyReply, linger: LingerLimits): void {
  if (request.raw.complete) return;
  void reply.header('connection', 'close');
  lingerAfterResponse(request.raw, linger);
}
