import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/engine.js';
import type { AssetStore } from '../../util/asset-store.js';
import { ifNoneMatchMatches, strongEtag } from '../../engine/validators.js';
import { registerDocsPage } from '../docs-page.js';
import { registerDeprecationsPage } from '../deprecations-page.js';
import { buildOpenApiDocument, DEFAULT_TITLE, type OpenApiOptions } from './build-openapi-document.js';
import { OPENAPI_PATH } from './service-paths.js';

export interface RegisterOpenApiOptions extends OpenApiOptions {
  readonly engine: Engine;
  /** Where the reference page puts its script (served by the server under /assets/). */
  readonly assets: AssetStore;
}

/**
 * `GET /openapi.json` and the API reference at `/docs`. The document is
 * built on its first request and kept (the model is frozen, so it never
 * changes while the server runs): building it at start-up made every
 * server, most of which are never asked for it, allocate a few megabytes
 * more while starting, memory V8 keeps for its young generation.
 */
export function registerOpenApi(app: FastifyInstance, options: RegisterOpenApiOptions): void {
  const { engine, assets, ...documentOptions } = options;
  // A document that failed to build (only a schema whose type names collide once pluralised) fails every request alike, without being built again.
  let built: { readonly body: string; readonly etag: string } | Error | undefined;
  const build = (): NonNullable<typeof built> => {
    try {
      const body = JSON.stringify(buildOpenApiDocument(engine.model, { ...documentOptions, files: engine.files !== undefined }));
      return { body, etag: strongEtag(body) };
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };
  // Storable, revalidated on every use: after a redeploy with another schema, nobody sees the old description.
  const cacheControl = 'public, no-cache';

  app.get(OPENAPI_PATH, (request, reply) => {
    built ??= build();
    if (built instanceof Error) throw built;
    const { body, etag } = built;
    reply.header('etag', etag).header('cache-control', cacheControl);
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatchMatches(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, etag)) {
      return reply.code(304).send();
    }
    return reply.type('application/json').send(body);
  });

  registerDocsPage(app, { documentUrl: OPENAPI_PATH, title: documentOptions.title ?? DEFAULT_TITLE, assets });
  registerDeprecationsPage(app, engine);
}
