import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { ANONYMOUS, type Principal } from '../plan/principal.js';
import type { RequestContext } from '../plan/request-context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request context (who is asking, their client key and budget, the
     * log, the site), set before any route runs by the server's hook
     * (src/server/request-context.ts); null only where no hook ran (a URL
     * the router could not parse). Read it with `contextOf(request)`.
     */
    requestContext: RequestContext | null;
  }
}

/** The request's context: every route runs after the hook that sets it, so a route without one is the server's bug. */
export function contextOf(request: FastifyRequest): RequestContext {
  const context = request.requestContext;
  if (context === null) throw new ApiError('INTERNAL', { detail: 'This route ran without a request context' });
  return context;
}

/** The request's principal (anonymous where no hook ran: an error page for a URL the router could not parse). */
export function principalOf(request: FastifyRequest): Principal {
  return request.requestContext?.principal ?? ANONYMOUS;
}
