import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { PREFLIGHT_HEADERS } from '../util/preflight-header.js';
import { normaliseOrigin } from './cross-site-guard.js';

export interface CorsOptions {
  /**
   * Origins (`https://app.example.com`) whose pages may call the API, or
   * `'*'` for any page. Empty or absent: no CORS headers at all, so
   * browsers keep other sites' pages from reading answers.
   */
  readonly origins: '*' | readonly string[];
  /** How long a browser may keep a preflight's answer, in seconds (600 by default; Chromium keeps at most 7200). */
  readonly maxAge?: number;
}

/** What a page on another origin may send: the credentials, JSON bodies, the validators, the GraphQL preflight headers, a request id, the client's name. */
export const CORS_ALLOWED_HEADERS: readonly string[] = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'If-Modified-Since', ...PREFLIGHT_HEADERS, 'X-Request-Id', 'X-Client-Name'];

/** What its scripts may read beyond the CORS-safelisted headers: validators, pages, where a record was made, limits, deprecations, timings. */
export const CORS_EXPOSED_HEADERS: readonly string[] = [
  'ETag',
  'Last-Modified',
  'Link',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
  'Server-Timing',
  'WWW-Authenticate',
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The origins the CORS configuration names, for the cross-site guard too: a
 * page allowed to read answers is allowed to send form-like writes. `'*'`
 * names none (any page may read public answers, but that is no reason to
 * take forms from every site).
 */
export function corsOrigins(options: CorsOptions | undefined): readonly string[] {
  return options === undefined || options.origins === '*' ? [] : options.origins.map(normaliseOrigin);
}

/**
 * CORS for REST and GraphQL alike (@fastify/cors), registered before
 * authentication so a preflight, which carries no credentials, is answered
 * at once. A request without Origin gets no CORS headers (curl, servers,
 * same-origin pages), nor does one from an origin not listed (the browser
 * then refuses the answer to the page). With listed origins the answer
 * names the one asking, varies by Origin, and allows credentials (cookies);
 * with `'*'` it allows any page but never credentials (Fetch forbids both).
 */
export async function registerCors(app: FastifyInstance, options: CorsOptions | undefined): Promise<void> {
  if (options === undefined) return;
  const any = options.origins === '*';
  const allowed = new Set(corsOrigins(options));
  if (!any && allowed.size === 0) return;
  const maxAge = options.maxAge ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new TypeError(`cors.maxAge must be a whole number of seconds, got ${String(maxAge)}`);
  await app.register(cors, {
    origin: (origin, answer) => {
      if (origin === undefined) answer(null, false);
      else if (any) answer(null, '*');
      else answer(null, allowed.has(origin.toLowerCase()));
    },
    methods: METHODS,
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    credentials: !any,
    maxAge,
    // An OPTIONS from a listed origin is answered here even without Access-Control-Request-Method; others reach the routes (204 with Allow, or 404).
    strictPreflight: false,
  });
}
