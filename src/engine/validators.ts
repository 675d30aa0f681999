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
 * A compressed answer is a representation of its own, so the HTTP edge
 * (src/server/compression.ts) gives it the ETag of the uncompressed one
 * with the coding appended inside the quotes (`"abc-br"`), as Apache does.
 * Both name the same data: a client holding either is up to date, and may
 * send either in If-Match.
 */
export const ENCODED_ETAG_SUFFIXES = ['-br', '-gzip'] as const;

/** The tag without a content-coding suffix (`"abc-br"` → `"abc"`); any other tag as it is. */
export function withoutEncodingSuffix(tag: string): string {
  for (const suffix of ENCODED_ETAG_SUFFIXES) {
    if (tag.endsWith(`${suffix}"`)) return `${tag.slice(0, -suffix.length - 1)}"`;
  }
  return tag;
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` matches when any listed tag equals the
 * current one under weak comparison, or it is `*`. A tag of a compressed
 * variant matches the data it compresses.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  return matchingTag(header, etag) !== undefined;
}

/** The tag of `If-None-Match` that matches `etag` (`*` itself), or undefined: a 304 names what the client holds. */
export function matchingTag(header: string | undefined, etag: string): string | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const opaque = withoutEncodingSuffix(etag.replace(/^W\//, ''));
  return header
    .split(',')
    .map((tag) => tag.trim())
    .find((tag) => withoutEncodingSuffix(tag.replace(/^W\//, '')) === opaque);
}

/**
 * RFC 9110 §13.1.1: `If-Match` uses strong comparison; `*` matches any
 * current representation. A compressed variant's tag stands for the data.
 */
export function ifMatchMatches(header: string, etag: string | undefined): boolean {
  if (etag === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => withoutEncodingSuffix(tag.trim()) === etag);
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
