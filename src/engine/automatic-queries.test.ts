import { createHash } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { PERSISTED_QUERIES_TABLE } from '../storage/migrate/desired-schema.js';
import { createAutomaticQueries } from './automatic-queries.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const options = { cacheSize: 100, maxDocumentBytes: 1024, maxStored: 100 };

describeEachDialect('Automatic persisted queries shared through the database', (ctx) => {
  let a: Database;
  let b: Database;
  const stored = async (): Promise<string[]> =>
    (await a.all<{ hash: string }>(`SELECT hash FROM ${PERSISTED_QUERIES_TABLE} ORDER BY hash`)).map((row) => row.hash);

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'notes.graphql', text: 'type Note { id: ID! text: String! }' }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    // Two connections, as two instances have.
    a = await ctx.open();
    await migrate(a, loaded.model);
    b = await ctx.open();
  });

  it('a document registered through one instance is found by another; the table is written once per instance at most', async () => {
    const one = createAutomaticQueries(a, options);
    const two = createAutomaticQueries(b, options);
    const doc = '{ notes { id } }';
    expect(await two.find(sha256(doc))).toBeUndefined();
    expect(await one.register(sha256(doc), doc)).toBeUndefined();
    expect(await two.find(sha256(doc))).toBe(doc);
    expect(await stored()).toContain(sha256(doc));
    // Found on `two` now from memory: deleting the row does not lose it there (a row never changes, so the copy stays true).
    await a.run(`DELETE FROM ${PERSISTED_QUERIES_TABLE}`);
    expect(await two.find(sha256(doc))).toBe(doc);
    // `one` remembers it registered the document: registering again writes nothing.
    await one.register(sha256(doc), doc);
    expect(await stored()).toEqual([]);
    // Another instance registering it for the first time stores it again.
    await createAutomaticQueries(b, options).register(sha256(doc), doc);
    expect(await stored()).toEqual([sha256(doc)]);
  });

  it('a document larger than the bound runs but is not stored; past the stored limit the oldest are deleted', async () => {
    await a.run(`DELETE FROM ${PERSISTED_QUERIES_TABLE}`);
    const small = createAutomaticQueries(a, { ...options, maxStored: 2 });
    const large = `{ notes { id } } # ${'x'.repeat(2000)}`;
    await small.register(sha256(large), large);
    expect(await small.find(sha256(large))).toBe(large);
    expect(await stored()).toEqual([]);
    expect(await createAutomaticQueries(b, options).find(sha256(large))).toBeUndefined();

    const docs = ['{ a: notes { id } }', '{ b: notes { id } }', '{ c: notes { id } }'];
    for (const doc of docs) {
      await small.register(sha256(doc), doc);
      // Each registration at its own millisecond, so "oldest" is one document.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await stored()).toEqual(docs.slice(1).map(sha256).sort());
    const other = createAutomaticQueries(b, options);
    expect(await other.find(sha256(docs[0] ?? ''))).toBeUndefined();
    expect(await other.find(sha256(docs[2] ?? ''))).toBe(docs[2]);
  });
});
