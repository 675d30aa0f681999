import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSchema } from '../schema/load-schema.js';
import { withoutDirectives } from '../schema/without-directives.js';
import { DEFAULT_LIMITS, planReadList, type PlanOptions } from './build-read.js';
import type { Principal } from './principal.js';
import { scannedRows } from './scan-cost.js';

const file = new URL('../../examples/social/schema.graphql', import.meta.url).pathname;
const text = readFileSync(file, 'utf8');
function modelOf(source: string): ReturnType<typeof loadSchema> & { ok: true } {
  const loaded = loadSchema([{ file, text: source }]);
  if (!loaded.ok) throw new Error('example schema does not load');
  return loaded;
}
const ruled = modelOf(text).model;
const open = modelOf(withoutDirectives(text, ['@allow(', '@account('])).model;
const ANONYMOUS: Principal = { id: null, role: null, claims: {}, admin: false, via: 'anonymous' };
const options: PlanOptions = { limits: DEFAULT_LIMITS, fromText: false, principal: ANONYMOUS };
const SIZES: Record<string, number> = { users: 1_000, posts: 50_000 };
const rows = (table: string): number => SIZES[table] ?? 0;

describe('scannedRows', () => {
  const posts = (model: typeof open, filter?: Record<string, unknown>, totalCount = false): number =>
    scannedRows(model, planReadList(model, 'Post', { filter, first: 5 }, [{ key: 'id', field: 'id' }], { ...options, totalCount }), rows);

  it('is nothing for a page an index answers', () => {
    expect(posts(open)).toBe(0);
    expect(posts(open, { author: { eq: '1' } })).toBe(0);
    expect(posts(open, { author: { eq: '1' }, body: { contains: 'x' } })).toBe(0);
  });

  it('is the table for a filter no index answers, and for a count over the table', () => {
    expect(posts(open, { body: { contains: 'x' } })).toBe(50_000);
    expect(posts(open, { or: [{ author: { eq: '1' } }, { body: { contains: 'x' } }] })).toBe(50_000);
    expect(posts(open, undefined, true)).toBe(50_000);
    expect(posts(open, { author: { eq: '1' } }, true)).toBe(0);
  });

  it('does not count the row rule as the asker’s filter', () => {
    expect(posts(ruled)).toBe(0);
    expect(posts(ruled, { body: { contains: 'x' } })).toBe(50_000);
  });

  it('is the related rows per record for an embedded list filtered on an unindexed field', () => {
    const plan = planReadList(open, 'User', { first: 4 }, [{ key: 'posts', field: 'posts', list: { filter: { body: { contains: 'x' } }, first: 2 } }], options);
    expect(scannedRows(open, plan, rows)).toBe(4 * (50_000 / 1_000));
  });
});
