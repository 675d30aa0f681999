import { hash } from 'node:crypto';
import { LruCache } from '../util/lru-cache.js';

/**
 * Strong validators (RFC 9110 §8.8.3) for both front-ends.
 *
 * An ETag is the hash of the representation itself, so it is exact: it
 * changes when and only when the bytes change, and `If-Match` on a record
 * fails only when *that* record changed. To answer a revalidation without
 * running the query, each instance remembers which ETag it issued for a
 * request at a given change-clock version of the tables the request reads;
 * while those clocks have not moved, the remembered ETag is still the
 * current one. After any write to those tables the query runs again, and
 * still answers 304 if the bytes came out the same.
 */
export function strongEtag(body: string): string {
  // crypto.hash is the one-shot form: no Hash object per response.
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

const LIMIT = 10_000;

export class ValidatorCache {
  private readonly entries = new LruCache<string, { readonly version: string; readonly etag: string }>(LIMIT);

  /** The ETag issued for `key` at clock `version`, if the clocks have not moved since. */
  get(key: string, version: string): string | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.version === version ? entry.etag : undefined;
  }

  set(key: string, version: string, etag: string): void {
    this.entries.set(key, { version, etag });
  }
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` matches when any listed tag equals the
 * current one under weak comparison, or it is `*`.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/**
 * RFC 9110 §13.1.1: `If-Match` uses strong comparison; `*` matches any
 * current representation.
 */
export function ifMatchMatches(header: string, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === etag);
}

/**
 * `Last-Modified` from when the data last changed, in HTTP-date's whole
 * seconds. It is sent only once that second is over: a change later in the
 * same second would otherwise carry the same date, and `If-Modified-Since`
 * would then hide it (RFC 9110 §8.8.2.2 calls such a date weak).
 */
export function lastModifiedHeader(changedAt: string | undefined, now: number = Date.now()): string | undefined {
  if (changedAt === undefined) return undefined;
  const time = changedAt === lastFormatted.changedAt ? lastFormatted.time : Date.parse(changedAt);
  if (Number.isNaN(time) || now - time < 1000) return undefined;
  // The same clock time is formatted for every response until the data changes: keep the last one.
  if (changedAt !== lastFormatted.changedAt) lastFormatted = { changedAt, time, header: new Date(time).toUTCString() };
  return lastFormatted.header;
}

let lastFormatted: { changedAt: string | undefined; time: number; header: string } = { changedAt: undefined, time: 0, header: '' };

/** RFC 9110 §13.1.3: true when nothing changed after the date the client holds. */
export function unmodifiedSince(changedAt: string | undefined, header: string | undefined): boolean {
  if (changedAt === undefined || header === undefined) return false;
  const since = Date.parse(header);
  if (Number.isNaN(since)) return false;
  return Math.floor(Date.parse(changedAt) / 1000) * 1000 <= since;
}
