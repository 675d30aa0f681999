import { hash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/** Where content-addressed assets are served: `/assets/<hash>/<name>`. */
export const ASSET_PREFIX = '/assets/';

/** Encodings an asset is kept in besides its own bytes, best first. */
export const ASSET_ENCODINGS = ['br', 'gzip'] as const;
export type AssetEncoding = (typeof ASSET_ENCODINGS)[number];

export interface Asset {
  /** `/assets/<hash>/<name>`: a new URL whenever the bytes change, so a copy may be kept for a year. */
  readonly path: string;
  readonly type: string;
  readonly body: string | Buffer;
  /** Strong, and per encoding (`"<hash>-br"`): each encoding is a representation of its own (RFC 9110 §8.8.3). */
  etag(encoding: AssetEncoding | undefined): string;
  /** The bytes in an encoding, compressed once (off the main thread) and then kept. */
  encoded(encoding: AssetEncoding): Promise<Buffer>;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Quality 6: measured on GraphiQL's 5 MB bundle here, quality 11 took 35 s
 * for 9 % fewer bytes than 6; 6 takes about 2 s, once per process.
 */
const BROTLI_QUALITY = 6;

/**
 * The static files of the browser pages (GraphiQL's and the API
 * reference's bundles, a few MB each): each under a URL naming its content's
 * hash, compressed once in br and gzip and kept, instead of compressed
 * again or sent whole on every visit. Sources are loaded when first needed
 * (a page is rendered, or an asset URL asked for after a restart), so a
 * server whose pages nobody opens holds none of them.
 */
export class AssetStore {
  private readonly byPath = new Map<string, Asset>();
  private readonly sources: (() => Promise<unknown>)[] = [];

  /** Adds (or finds again) the asset with these bytes; each compressed form is made when first asked for. */
  add(name: string, type: string, body: string | Buffer): Asset {
    const digest = hash('sha256', body, 'base64url').slice(0, 22);
    const path = `${ASSET_PREFIX}${digest}/${name}`;
    const known = this.byPath.get(path);
    if (known !== undefined) return known;
    const asset = createAsset(path, digest, type, body);
    this.byPath.set(path, asset);
    return asset;
  }

  /** A loader that adds assets, run when an unknown asset path is asked for (a page cached before a restart). */
  addSource(load: () => Promise<unknown>): void {
    this.sources.push(load);
  }

  async find(path: string): Promise<Asset | undefined> {
    const known = this.byPath.get(path);
    if (known !== undefined || !path.startsWith(ASSET_PREFIX)) return known;
    await Promise.all(this.sources.map((load) => load().catch(() => undefined)));
    return this.byPath.get(path);
  }
}

function createAsset(path: string, digest: string, type: string, body: string | Buffer): Asset {
  const encoded = new Map<AssetEncoding, Promise<Buffer>>();
  const compress = (encoding: AssetEncoding): Promise<Buffer> => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    return encoding === 'br'
      ? brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
      : gzipAsync(bytes, { level: 9 });
  };
  return {
    path,
    type,
    body,
    etag: (encoding) => (encoding === undefined ? `"${digest}"` : `"${digest}-${encoding}"`),
    encoded: (encoding) => {
      let promise = encoded.get(encoding);
      if (promise === undefined) {
        promise = compress(encoding);
        encoded.set(encoding, promise);
      }
      return promise;
    },
  };
}

/**
 * The encoding to answer in (RFC 9110 §12.5.3): br, then gzip, among those
 * the client accepts with a non-zero weight; undefined means identity.
 */
export function negotiateEncoding(acceptEncoding: string | undefined, offered: readonly AssetEncoding[] = ASSET_ENCODINGS): AssetEncoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((text) => text.trim());
    if (coding === '') continue;
    const q = params.find((param) => param.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(coding, Number.isFinite(weight) ? weight : 0);
  }
  let best: AssetEncoding | undefined;
  let bestWeight = 0;
  for (const encoding of offered) {
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}
