import type { IncomingMessage } from 'node:http';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { hasPreflightHeader } from '../util/preflight-header.js';
import { header } from '../util/http-request.js';

/**
 * A write a browser sends from any page without a CORS preflight (Fetch,
 * "CORS-safelisted request-header"): an HTML form or a `fetch` with no body
 * or one of these content types. Anything else (JSON, merge patch) is
 * preflighted, and without CORS the browser never sends it cross-site.
 */
const FORM_LIKE_TYPES = new Set(['multipart/form-data', 'application/x-www-form-urlencoded', 'text/plain']);

/** RFC 9110 §9.2.1: these never change anything, so a cross-site one is harmless. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * The edge's CSRF check, for REST and GraphQL alike (an `onRequest` hook, so
 * a refused body is never parsed): a form-like write is refused with 403
 * CROSS_SITE_REQUEST_REFUSED when it comes from another site, unless it
 * carries a preflight-forcing header or its Origin is in `allowedOrigins`.
 * Not cross-site means `Sec-Fetch-Site: same-origin` or `none` (typed in the
 * address bar), no Sec-Fetch-Site and no Origin (curl, servers, old
 * browsers' same-origin forms), or an Origin equal to this server's own.
 */
export function crossSiteGuard(allowedOrigins: readonly string[]): onRequestHookHandler {
  const allowed = new Set(allowedOrigins.map(normaliseOrigin));
  return (request, _reply, done) => {
    done(refusal(request, allowed));
  };
}

function refusal(request: FastifyRequest, allowed: ReadonlySet<string>): ApiError | undefined {
  if (!isFormLikeWrite(request.method, header(request, 'content-type'))) return undefined;
  if (hasPreflightHeader(request.headers)) return undefined;
  const site = header(request, 'sec-fetch-site')?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return undefined;
  const origin = header(request, 'origin')?.trim();
  if (site === undefined && origin === undefined) return undefined;
  if (origin !== undefined && (allowed.has(origin.toLowerCase()) || origin.toLowerCase() === ownOrigin(request))) return undefined;
  return new ApiError('CROSS_SITE_REQUEST_REFUSED', {
    detail:
      `A ${request.method} with a form's content type from another site (Origin ${origin?.slice(0, 100) ?? 'absent'}, Sec-Fetch-Site ${site?.slice(0, 20) ?? 'absent'}) is refused: ` +
      'send it from this origin, as application/json, or with a non-empty GraphQL-Require-Preflight header',
    extensions: { headers: ['GraphQL-Require-Preflight', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name'] },
  });
}

/**
 * The same check for a WebSocket upgrade, which no preflight protects
 * either: a browser opens one from any page and it carries what a request
 * would (RFC 6455 §10.2: servers check Origin). Refused when it comes from
 * another site: an Origin whose host is not the one addressed and that is
 * not allowed. Clients that are not browsers send no Origin and pass.
 */
export function upgradeRefusal(request: IncomingMessage, allowedOrigins: readonly string[]): ApiError | undefined {
  const allowed = new Set(allowedOrigins.map(normaliseOrigin));
  const site = first(request.headers['sec-fetch-site'])?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return undefined;
  const origin = first(request.headers.origin)?.trim();
  if (origin === undefined) return site === undefined ? undefined : crossSiteUpgrade(origin, site);
  if (allowed.has(origin.toLowerCase())) return undefined;
  const host = first(request.headers.host)?.trim().toLowerCase();
  if (host !== undefined && URL.canParse(origin) && new URL(origin).host === host) return undefined;
  return crossSiteUpgrade(origin, site);
}

function crossSiteUpgrade(origin: string | undefined, site: string | undefined): ApiError {
  return new ApiError('CROSS_SITE_REQUEST_REFUSED', {
    detail: `A WebSocket from another site (Origin ${origin?.slice(0, 100) ?? 'absent'}, Sec-Fetch-Site ${site?.slice(0, 20) ?? 'absent'}) is refused: open it from this origin, or list that origin in cors.origins`,
  });
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A state-changing method with no body type or a form's (compared by essence: `text/plain;charset=utf-8` is text/plain). */
export function isFormLikeWrite(method: string, contentType: string | undefined): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return false;
  const essence = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === '' || FORM_LIKE_TYPES.has(essence);
}

/** `scheme://host[:port]` as browsers serialise it in Origin (RFC 6454 §6.1: lowercase, no default port); a bad entry fails at start-up. */
export function normaliseOrigin(text: string): string {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new Error(`allowedOrigins: ${JSON.stringify(text)} is not an origin (scheme://host[:port], nothing after it)`);
  }
  return url.origin;
}

/** The origin the client addressed: the scheme and the Host header (Fastify honours X-Forwarded-* only with trustProxy). */
function ownOrigin(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return undefined;
  }
}
