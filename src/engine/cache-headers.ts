import { cacheControlHeader, type CachePolicy } from './cache-policy.js';

/** What a cacheable read's answer says about itself (a 200 or a 304). */
export interface CacheFacts {
  readonly policy: CachePolicy;
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
}

/**
 * The caching headers of a read's answer, written once for both styles:
 * Cache-Control, ETag, Last-Modified, and Vary (`Authorization` when the
 * answer depends on who asks, after what the style itself varies on, such
 * as GraphQL's `Accept`). A 304 carries the same ones (RFC 9110 §15.4.5).
 */
export function cacheHeaders(facts: CacheFacts, varyOn: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'cache-control': cacheControlHeader(facts.policy) };
  const vary = facts.policy.varyAuthorization === true ? (varyOn === undefined ? 'Authorization' : `${varyOn}, Authorization`) : varyOn;
  if (vary !== undefined) headers['vary'] = vary;
  if (facts.etag !== undefined) headers['etag'] = facts.etag;
  if (facts.lastModified !== undefined) headers['last-modified'] = facts.lastModified;
  return headers;
}
