import type { ReadResult } from '../engine/engine.js';
import type { ListArgs } from '../plan/build-read.js';
import { encodeCursor } from '../plan/cursor.js';
import type { ReadPlan } from '../plan/read-plan.js';

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

/** RFC 8288 links to the neighbouring pages and the first page, relative to the request URL. */
export function listLinks(url: string, { next, prev }: PageCursors): string {
  const [path, search = ''] = url.split('?', 2) as [string, string?];
  const base = new URLSearchParams(search);
  base.delete('after');
  base.delete('before');
  const link = (rel: string, cursor?: { name: 'after' | 'before'; value: string }): string => {
    const query = new URLSearchParams(base);
    if (cursor !== undefined) query.set(cursor.name, cursor.value);
    const text = query.toString();
    return `<${path}${text === '' ? '' : `?${text}`}>; rel="${rel}"`;
  };
  const links = [link('first')];
  if (next !== undefined) links.push(link('next', { name: 'after', value: next }));
  if (prev !== undefined) links.push(link('prev', { name: 'before', value: prev }));
  return links.join(', ');
}
