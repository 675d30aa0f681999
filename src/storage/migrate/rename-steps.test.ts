import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/databases.js';
import { ApiError } from '../../errors/api-error.js';
import { modelOf } from '../../../test/support/model-of.js';
import type { Database } from '../dialect.js';
import { CLOCK_TABLE } from './desired-schema.js';
import { formatPlan, migrate } from './migrate.js';


const BEFORE = `
  type Member {
    id: ID!
    name: String!
    email: String! @unique
    status: Status! @default(value: ACTIVE)
    articles: [Article!]! @relation(inverse: "writer")
    followers: [Member!]!
    following: [Member!]!
  }
  enum Status { ACTIVE GONE }
  type Article {
    id: ID!
    title: String! @index
    writer: Member!
  }
`;

/** Member → Person, Article.title → headline, Article.writer → author, Member.followers → fans, Member.status → state. */
const AFTER = `
  type Person @renamed(from: "Member") {
    id: ID!
    name: String!
    email: String! @unique
    state: Status! @default(value: ACTIVE) @renamed(from: "status")
    articles: [Article!]! @relation(inverse: "author")
    fans: [Person!]! @renamed(from: "followers")
    following: [Person!]!
  }
  enum Status { ACTIVE GONE }
  type Article {
    id: ID!
    headline: String! @index @renamed(from: "title")
    author: Person! @renamed(from: "writer")
  }
`;

/** What a client sees once the directives are removed: the same storage, no @renamed. */
const SETTLED = AFTER.replaceAll(/ @renamed\(from: "\w+"\)/g, '');

describeEachDialect('@renamed: migrations rename and keep the data', (ctx) => {
  let db: Database;
  beforeAll(async () => {
    await ctx.reset();
    const before = modelOf(BEFORE);
    db = await ctx.open({ model: before });
    await migrate(db, before);
    await db.run(`INSERT INTO members (id, name, email, status) VALUES ('m1', 'Ann', 'ann@example.com', 'GONE'), ('m2', 'Bo', 'bo@example.com', 'ACTIVE')`);
    await db.run(`INSERT INTO articles (id, title, writer_id) VALUES ('a1', 'Hello', 'm1'), ('a2', 'Again', 'm2')`);
    await db.run(`INSERT INTO members_followers (source_id, target_id) VALUES ('m1', 'm2'), ('m2', 'm1')`);
  });

  it('plans renames, not drops, and none of them destructive (dry run changes nothing)', async () => {
    const plan = await migrate(db, modelOf(AFTER), { dryRun: true });
    const described = plan.steps.map((step) => step.description);
    expect(described).toEqual(expect.arrayContaining([
      'rename table members to people (its rows are kept)',
      'rename table members_followers to people_fans (its rows are kept)',
      'rename column people.status to state (its values are kept)',
      'rename column articles.title to headline (its values are kept)',
      'rename column articles.writer_id to author_id (its values are kept)',
    ]));
    expect(plan.steps.filter((step) => step.destructive)).toEqual([]);
    expect(described.some((text) => /^(drop|add column|create table)/.test(text))).toBe(false);
    const text = formatPlan(plan.steps);
    expect(text).toContain('rename column articles.title to headline');
    expect(text).not.toContain('--allow-destructive');
    expect([...(await db.schema.introspect(db)).tables.keys()]).toContain('members');
  });

  it('applies without --allow-destructive, and every row, value and link is still there', async () => {
    const after = modelOf(AFTER);
    const result = await migrate(db, after);
    expect(result.applied).toBe(true);
    expect(await db.all(`SELECT id, name, state FROM people ORDER BY id`)).toEqual([
      { id: 'm1', name: 'Ann', state: 'GONE' },
      { id: 'm2', name: 'Bo', state: 'ACTIVE' },
    ]);
    expect(await db.all(`SELECT id, headline, author_id FROM articles ORDER BY id`)).toEqual([
      { id: 'a1', headline: 'Hello', author_id: 'm1' },
      { id: 'a2', headline: 'Again', author_id: 'm2' },
    ]);
    expect(await db.all(`SELECT source_id, target_id FROM people_fans ORDER BY source_id`)).toEqual([
      { source_id: 'm1', target_id: 'm2' },
      { source_id: 'm2', target_id: 'm1' },
    ]);
    const schema = await db.schema.introspect(db);
    expect(schema.tables.has('members')).toBe(false);
    expect(schema.tables.get('articles')?.foreignKeys.map((fk) => [fk.column, fk.table])).toEqual([['author_id', 'people']]);
    expect(schema.tables.get('articles')?.indexes.map((index) => index.name).sort()).toEqual(['articles_author_id_by_id_idx', 'articles_by_id_idx', 'articles_headline_by_id_idx']);
    expect(schema.tables.get('people')?.indexes.map((index) => index.name)).toEqual(['people_by_id_idx', 'people_email_key']);
    // The enum check still holds on the renamed column.
    await expect(db.run(`UPDATE people SET state = 'NOPE' WHERE id = 'm1'`)).rejects.toThrow();
    // A to-one still points at a row that exists.
    await expect(db.run(`INSERT INTO articles (id, headline, author_id) VALUES ('a3', 'X', 'nobody')`)).rejects.toThrow();
    // The clocks moved with their tables (no restart from a new random value).
    const clocks = await db.all<{ table_name: string }>(`SELECT table_name FROM ${CLOCK_TABLE} ORDER BY table_name`);
    expect(clocks.map((row) => row.table_name)).toEqual(['articles', 'people', 'people_fans']);
  });

  it('does nothing on the next start with the directives still there, nor once they are removed', async () => {
    expect((await migrate(db, modelOf(AFTER))).steps).toEqual([]);
    expect((await migrate(db, modelOf(SETTLED))).steps).toEqual([]);
  });

  it('does nothing on a database made with the new names', async () => {
    await ctx.reset();
    const fresh = await ctx.open({ model: modelOf(AFTER) });
    await migrate(fresh, modelOf(AFTER));
    expect((await migrate(fresh, modelOf(AFTER))).steps).toEqual([]);
  });

  it('refuses, naming both, when the old and the new table or column both exist', async () => {
    await ctx.reset();
    const both = await ctx.open({ model: modelOf(SETTLED) });
    await migrate(both, modelOf(SETTLED));
    await both.run(`ALTER TABLE articles ADD COLUMN title TEXT`);
    const plan = await migrate(both, modelOf(AFTER), { dryRun: true });
    const blocked = plan.steps.find((step) => step.problem !== undefined);
    expect(blocked?.description).toBe('rename column articles.title to headline (its values are kept)');
    expect(formatPlan(plan.steps)).toContain('[blocked]');
    const error: unknown = await migrate(both, modelOf(AFTER), { allowDestructive: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/Article\.headline is @renamed from a name whose column articles\.title the database still has, but it also has articles\.headline/);
    expect((await both.schema.introspect(both)).tables.get('articles')?.columns.map((column) => column.name)).toContain('title');
    // The same for a table: members and people both there.
    await both.run(`CREATE TABLE members (id TEXT PRIMARY KEY)`);
    const tables = await migrate(both, modelOf(AFTER), { dryRun: true });
    expect(tables.steps.find((step) => step.description.startsWith('rename table members'))?.problem).toMatch(/Type Person is @renamed from a name whose table members the database still has, but it also has people/);
  });
});
