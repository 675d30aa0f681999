import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';

/** Every other method on `url` answers 405 with `Allow` (RFC 9110 §15.5.6). */
export function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const others = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).filter((method) => !allowed.includes(method));
  app.route({
    method: others,
    url,
    handler: () => {
      throw new ApiError('METHOD_NOT_ALLOWED', { detail: `Allowed here: ${allowed.join(', ')}`, extensions: { allow: allowed } });
    },
  });
}
