import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import { ifNoneMatchMatches, strongEtag } from '../../engine/validators.js';
import { registerDocsPage } from '../docs-page.js';
import { buildOpenApiDocument, type OpenApiOptions } from './build-openapi-document.js';
import { OPENAPI_PATH } from './service-paths.js';

export interface RegisterOpenApiOptions extends OpenApiOptions {
  readonly engine: Engine;
}

/**
 * `GET /openapi.json` (built once: the model is frozen, so the document
 * never changes while the server runs) and the API reference at `/docs`.
 */
export function registerOpenApi(app: FastifyInstance, options: RegisterOpenApiOptions): void {
  const { engine, ...documentOptions } = options;
  const document = buildOpenApiDocument(engine.model, { ...documentOptions, files: engine.files !== undefined });
  const body = JSON.stringify(document);
  const etag = strongEtag(body);
  // Storable, revalidated on every use: after a redeploy with another schema, nobody sees the old description.
  const cacheControl = 'public, no-cache';

  app.get(OPENAPI_PATH, (request, reply) => {
    reply.header('etag', etag).header('cache-control', cacheControl);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatchMatches(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, etag)) {
      return reply.code(304).send();
    }
    return reply.type('application/json').send(body);
  });

  registerDocsPage(app, { documentUrl: OPENAPI_PATH, title: document.info.title });
}
