import type { FastifyInstance } from 'fastify';
import { ifNoneMatchMatches } from '../engine/validators.js';
import { ApiError } from '../errors/api-error.js';
import { addVary } from '../util/vary.js';
import { ASSET_PREFIX, negotiateEncoding, type AssetStore } from '../util/asset-store.js';

/** A year: the URL names the content, so what it names never changes (RFC 8246 `immutable`). */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * `GET /assets/<hash>/<name>`: the pages' scripts, styles and icons from the
 * asset store, in br or gzip made once (never compressed per request), with
 * a strong ETag per encoding (an icon compresses to a fifth, so it is
 * compressed too).
 */
export function registerAssetRoutes(app: FastifyInstance, assets: AssetStore): void {
  app.get(`${ASSET_PREFIX}:hash/:name`, { logLevel: 'warn' }, async (request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '';
    const asset = await assets.find(path);
    if (asset === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No asset at ${path.slice(0, 200)}` });
    const accept = request.headers['accept-encoding'];
    const encoding = negotiateEncoding(Array.isArray(accept) ? accept.join(', ') : accept);
    const etag = asset.etag(encoding);
    void reply.header('cache-control', IMMUTABLE).header('etag', etag);
    addVary(reply, 'Accept-Encoding');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatchMatches(Array.isArray(ifNoneMatch) ? ifNoneMatch.join(', ') : ifNoneMatch, etag)) return reply.code(304).send();
    void reply.type(asset.type);
    if (encoding === undefined) return reply.send(asset.body);
    return reply.header('content-encoding', encoding).send(await asset.encoded(encoding));
  });
}
