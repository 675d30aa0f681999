import type { ReadResult } from '../engine/engine.js';
import type { ListArgs } from '../plan/build-read.js';
import { encodeCursor } from '../plan/cursor.js';
import type { ReadPlan } from '../plan/read-plan.js';
import { pathOf, searchOf } from '../util/http-request.js';

type ListResult = Extract<ReadResult, { kind: 'list' }>;

/**
 * Every REST list (collections and sub-collections) has one envelope:
 *
 *   { "data": [...], "hasMore": bool, "nextCursor": "…"|null, "prevCursor": "…"|null, "totalCount"?: n }
 *
 * The same cursors drive the RFC 8288 `Link` header.
 */
export function renderList(result: ListResult, { next, prev }: PageCursors): string {
  const total = result.totalCount === undefined ? '' : `,"totalCount":${result.totalCount}`;
  return `{"data":${result.json},"hasMore":${result.hasMore},"nextCursor":${JSON.stringify(next ?? null)},"prevCursor":${JSON.stringify(prev ?? null)}${total}}`;
}

/** The cursors of the neighbouring pages, for the body and the `Link` header alike. */
export interface PageCursors {
  readonly next: string | undefined;
  readonly prev: string | undefined;
}

export function pageCursors(plan: ReadPlan, result: ListResult, args: ListArgs): PageCursors {
  if (plan.root.kind !== 'list') return { next: undefined, prev: undefined };
  const { order, page } = plan.root.node;
  // Only the cursors the answer names are encoded: most pages name one.
  const cursor = (key: readonly unknown[] | undefined): string | undefined => (key === undefined ? undefined : encodeCursor(order, key));
  // Paged backward, `hasMore` says rows come before this page; forward, after it.
  if (page.fromEnd) {
    return { prev: result.hasMore ? cursor(result.startKey) : undefined, next: args.before !== undefined ? cursor(result.endKey) : undefined };
  }
  return { next: result.hasMore ? cursor(result.endKey) : undefined, prev: args.after !== undefined ? cursor(result.startKey) : undefined };
}

/**
 * The most characters the `Link` header holds. A link repeats the request's
 * query and adds a cursor, which holds the sort keys' values: sorted on a
 * long text field, one is as long as that text, and a header past 16 KB is
 * one Node's fetch refuses to read (UND_ERR_HEADERS_OVERFLOW). Links that do
 * not fit are left out, next and prev kept before first; the body's
 * `nextCursor` / `prevCursor` carry the cursors still.
 */
export const MAX_LINK_HEADER_LENGTH = 8192;

/** RFC 8288 links to the neighbouring pages and the first page, relative to the request URL, within MAX_LINK_HEADER_LENGTH. */
export function listLinks(url: string, { next, prev }: PageCursors): string {
  const path = pathOf(url);
  const base = new URLSearchParams(searchOf(url));
  base.delete('after');
  base.delete('before');
  const link = (rel: string, cursor?: { name: 'after' | 'before'; value: string }): string => {
    const query = new URLSearchParams(base);
    if (cursor !== undefined) query.set(cursor.name, cursor.value);
    const text = query.toString();
    return `<${path}${text === '' ? '' : `?${text}`}>; rel="${rel}"`;
  };
  const wanted = [
    next === undefined ? undefined : link('next', { name: 'after', value: next }),
    prev === undefined ? undefined : link('prev', { name: 'before', value: prev }),
    link('first'),
  ];
  let room = MAX_LINK_HEADER_LENGTH;
  const kept = new Set<string>();
  for (const text of wanted) {
    // Each link after the first costs its ", " too.
    if (text === undefined || text.length + 2 > room) continue;
    kept.add(text);
    room -= text.length + 2;
  }
  // In the order they always had: first, next, prev.
  return [wanted[2], wanted[0], wanted[1]].filter((text): text is string => text !== undefined && kept.has(text)).join(', ');
}
