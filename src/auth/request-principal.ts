import type { FastifyRequest } from 'fastify';
import { ANONYMOUS, type Principal } from '../plan/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who is asking, set before any route runs by the server's
     * authentication hook (src/server/request-context.ts); null only where
     * no hook ran (a URL the router could not parse). Read it with
     * `principalOf(request)`.
     */
    principal: Principal | null;
  }
}

/** The request's principal (anonymous where none was set): what the front-ends hand to the planner. */
export function principalOf(request: FastifyRequest): Principal {
  return request.principal ?? ANONYMOUS;
}
