import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';

/**
 * Every other method on `url` answers 405 with `Allow` (RFC 9110 §15.5.6),
 * and OPTIONS answers 204 with the same `Allow` (§9.3.7), as /graphql does.
 * A CORS preflight is answered before any route, at the edge
 * (src/server/cors-policy.ts), when CORS is configured.
 */
export function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const allow = [...allowed, 'OPTIONS'];
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((method) => !allowed.includes(method));
  if (others.length > 0) {
    app.route({
      method: others,
      url,
      handler: () => {
        throw new ApiError('METHOD_NOT_ALLOWED', { detail: `Allowed here: ${allow.join(', ')}`, extensions: { allow } });
      },
    });
  }
  app.options(url, (_request, reply) => reply.code(204).header('allow', allow.join(', ')).send());
}
