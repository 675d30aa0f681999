import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { challengeFor } from '../auth/www-authenticate.js';
import { isApiError } from '../errors/api-error.js';
import type { Principal } from '../plan/principal.js';
// For its `FastifyRequest.principal` declaration.
import '../auth/request-principal.js';

/** Seconds a client is asked to wait when the key set or the database did not answer. */
const RETRY_AFTER_SECONDS = '5';

/**
 * Sets `request.principal` on every request, before any route runs (REST,
 * /graphql, /files, the docs): an `onRequest` hook on the root, so it is
 * inherited by every plugin registered after it. A refused credential ends
 * the request with 401 and an RFC 6750 challenge, rendered by the route's
 * own error handler: problem+json in REST, the GraphQL envelope on /graphql.
 */
export function installRequestContext(app: FastifyInstance, authenticator: Authenticator): void {
  // Fastify 5 takes only primitives here; the hook sets the real value.
  app.decorateRequest('principal', null);
  app.addHook('onRequest', (request, reply, done) => {
    const authorization = request.headers.authorization;
    let result: Principal | Promise<Principal>;
    try {
      result = authenticator.authenticate(authorization);
    } catch (error) {
      refuse(request, reply, error, done);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (principal) => {
          request.principal = principal;
          done();
        },
        (error: unknown) => {
          refuse(request, reply, error, done);
        },
      );
      return;
    }
    request.principal = result;
    done();
  });
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown, done: HookHandlerDoneFunction): void {
  if (isApiError(error)) {
    const challenge = challengeFor(error, request.headers.authorization);
    if (challenge !== undefined) void reply.header('www-authenticate', challenge);
    if (error.status === 503) {
      void reply.header('retry-after', RETRY_AFTER_SECONDS);
      // Why the key set could not be fetched, for the operator (the client gets the code alone).
      if (error.cause !== undefined) request.log.warn({ err: error.cause, code: error.code }, 'authentication unavailable');
    }
  }
  done(error instanceof Error ? error : new Error(String(error)));
}
