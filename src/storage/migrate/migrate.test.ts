import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, describePostgres, type DialectContext } from '../../../test/support/databases.js';
import { ApiError } from '../../errors/api-error.js';
import { modelOf } from '../../../test/support/model-of.js';
import type { Model } from '../../schema/model.js';
import type { Database } from '../dialect.js';
import { API_KEYS_TABLE, CLOCK_TABLE, DELIVERIES_TABLE, DELIVERY_LOG_TABLE, DEPRECATION_USES_TABLE, DEPRECATIONS_TABLE, EVENT_STATE_TABLE, EVENTS_TABLE, MIGRATIONS_TABLE, PERSISTED_QUERIES_TABLE, SCHEMAS_TABLE, WEBHOOK_ENDPOINTS_TABLE } from './desired-schema.js';
import { formatPlan, migrate } from './migrate.js';


const BASE = `
  type User {
    id: ID!
    name: String!
    email: String! @unique
    nickname: String
    role: Role! @default(value: MEMBER)
    active: Boolean! @default(value: true)
    posts: [Post!]! @relation(inverse: "author")
    followers: [User!]!
    following: [User!]!
    createdAt: DateTime! @createdAt
  }
  enum Role { MEMBER ADMIN }
  type Post {
    id: ID!
    title: String!
    author: User! @relation(onDelete: CASCADE)
    editor: User @relation(onDelete: SET_NULL)
    score: Float
  }
`;

/** The keys of an id-ordered index, as introspection reports them (shorter ids first, then as text). */
const ID_KEYS: Record<Database['dialect'], (column: string) => string[]> = {
  sqlite: (column) => [`char(length(${column}))||${column}`],
  postgres: (column) => [`length(${column})`, column],
};

/** A fresh database at `model`'s schema. */
async function migrated(ctx: DialectContext, model: Model): Promise<Database> {
  await ctx.reset();
  const db = await ctx.open({ model });
  await migrate(db, model);
  return db;
}

async function tables(db: Database): Promise<string[]> {
  return [...(await db.schema.introspect(db)).tables.keys()].sort();
}

async function columns(db: Database, table: string): Promise<string[]> {
  return ((await db.schema.introspect(db)).tables.get(table)?.columns ?? []).map((column) => column.name);
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  expect(error.code).toBe('MIGRATION_DESTRUCTIVE');
  return error;
}

/** Users u1, u2 and posts by them: data a migration must keep. */
async function seed(db: Database): Promise<void> {
  const p = (n: number): string => db.sql.placeholder(n);
  for (const id of ['u1', 'u2']) {
    await db.run(`INSERT INTO users (id, name, email, nickname, created_at) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`, [
      id,
      `Name ${id}`,
      `${id}@example.com`,
      `nick ${id}`,
      '2024-01-01T00:00:00.000Z',
    ]);
  }
  await db.run(`INSERT INTO posts (id, title, author_id, editor_id) VALUES ('p1', 'Hello', 'u1', 'u2'), ('p2', 'Again', 'u2', NULL)`);
  await db.run(`INSERT INTO users_followers (source_id, target_id) VALUES ('u1', 'u2')`);
}

describeEachDialect('migrate from an empty database', (ctx) => {
  const model = modelOf(BASE);
  let db: Database;
  beforeAll(async () => {
    db = await ctx.open({ model });
  });
  afterAll(async () => {
    await db.close();
  });

  it('plans without changing anything on a dry run', async () => {
    const plan = await migrate(db, model, { dryRun: true });
    expect(plan.applied).toBe(false);
    expect(plan.steps.map((step) => step.description)).toContain('create table users');
    expect(plan.steps.some((step) => step.destructive)).toBe(false);
    expect(await tables(db)).toEqual([]);
  });

  it('creates every table, index, constraint and clock, and records a version', async () => {
    const progress: number[] = [];
    const result = await migrate(db, model, { onProgress: ({ index }) => progress.push(index) });
    expect(result.applied).toBe(true);
    expect(progress).toEqual(result.steps.map((_, i) => i));
    expect(await tables(db)).toEqual([API_KEYS_TABLE, CLOCK_TABLE, DELIVERIES_TABLE, DELIVERY_LOG_TABLE, DEPRECATION_USES_TABLE, DEPRECATIONS_TABLE, EVENT_STATE_TABLE, EVENTS_TABLE, MIGRATIONS_TABLE, PERSISTED_QUERIES_TABLE, SCHEMAS_TABLE, WEBHOOK_ENDPOINTS_TABLE, 'posts', 'users', 'users_followers'].sort());

    const schema = await db.schema.introspect(db);
    const users = schema.tables.get('users');
    expect(users?.indexes).toEqual([
      { name: 'users_by_id_idx', columns: ID_KEYS[db.dialect]('id'), unique: false },
      { name: 'users_email_key', columns: ['email'], unique: true },
    ]);
    // Lists come in the id order, shorter ids first: SQLite indexes it as one key (which it can seek), PostgreSQL as two.
    const byId = ID_KEYS[db.dialect];
    expect(users?.primaryKey).toEqual(['id']);
    const posts = schema.tables.get('posts');
    // Non-unique indexes end with the id, the tie-break of every list's order.
    expect(posts?.indexes.map((index) => [index.name, index.columns])).toEqual([
      ['posts_author_id_by_id_idx', ['author_id', ...byId('id')]],
      ['posts_by_id_idx', byId('id')],
      ['posts_editor_id_by_id_idx', ['editor_id', ...byId('id')]],
    ]);
    expect(posts?.foreignKeys.map((fk) => [fk.column, fk.table, fk.onDelete]).sort()).toEqual([
      ['author_id', 'users', 'cascade'],
      ['editor_id', 'users', 'set null'],
    ]);
    const join = schema.tables.get('users_followers');
    expect(join?.primaryKey).toEqual(['source_id', 'target_id']);
    // One record's links from either side, in the id order of the other.
    // …holding the linked id itself too, so a page of links never reads their rows.
    const covering = (column: string): string[] => [...new Set([...byId(column), column])];
    expect(join?.indexes.map((index) => index.columns)).toEqual([
      ['source_id', ...covering('target_id')],
      ['target_id', ...covering('source_id')],
    ]);
    expect([...(schema.clockTables ?? [])].sort()).toEqual(['posts', 'users', 'users_followers']);

    const versions = await db.all<{ version: number; model_hash: string }>(`SELECT version, model_hash FROM ${MIGRATIONS_TABLE}`);
    expect(versions).toEqual([{ version: 1, model_hash: model.hash }]);
  });

  it('finds nothing to do the second time', async () => {
    const again = await migrate(db, model);
    expect(again).toEqual({ steps: [], applied: false });
    expect(formatPlan(again.steps)).toContain('nothing to do');
    expect(await db.all(`SELECT version FROM ${MIGRATIONS_TABLE}`)).toHaveLength(1);
  });

  it('builds tables that enforce the model: defaults, cascades and SET NULL', async () => {
    await seed(db);
    const [user] = await db.all<{ role: string; active: unknown }>(`SELECT role, active FROM users WHERE id = 'u1'`);
    expect(user?.role).toBe('MEMBER');
    expect([1, true]).toContain(user?.active);
    await db.run(`DELETE FROM users WHERE id = 'u2'`);
    expect(await db.all('SELECT id, editor_id FROM posts ORDER BY id')).toEqual([{ id: 'p1', editor_id: null }]);
    expect(await db.all('SELECT * FROM users_followers')).toEqual([]);
  });
});

describeEachDialect('migrate: adding fields', (ctx) => {
  it('adds columns, indexes and tables without a destructive step, filling defaults in', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await seed(db);
    const grown = modelOf(
      BASE.replace('nickname: String', 'nickname: String @index\n    bio: String\n    level: Int! @default(value: 5)\n    joinedAt: DateTime! @createdAt').replace(
        'score: Float',
        'score: Float\n    tags: [String!]\n    slug: String @unique',
      ) + '\n  type Tag { id: ID!  label: String! }',
    );
    const result = await migrate(db, grown);
    expect(result.applied).toBe(true);
    expect(result.steps.filter((step) => step.destructive)).toEqual([]);
    expect(await columns(db, 'users')).toEqual(expect.arrayContaining(['bio', 'level', 'joined_at']));
    expect(await db.all('SELECT id, level, nickname FROM users ORDER BY id')).toEqual([
      { id: 'u1', level: 5, nickname: 'nick u1' },
      { id: 'u2', level: 5, nickname: 'nick u2' },
    ]);
    const [joined] = await db.all<{ joined_at: string }>(`SELECT joined_at FROM users WHERE id = 'u1'`);
    expect(joined?.joined_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await db.all('SELECT id FROM posts ORDER BY id')).toEqual([{ id: 'p1' }, { id: 'p2' }]);
    expect(await tables(db)).toContain('tags');
    const indexes = (await db.schema.introspect(db)).tables.get('posts')?.indexes.map((index) => index.name);
    expect(indexes).toContain('posts_slug_key');
    expect((await migrate(db, grown)).steps).toEqual([]);
  });

  it('moves a database made by earlier versions to the id-ordered indexes, keeping lookups indexed meanwhile', async () => {
    const model = modelOf(BASE);
    const db = await migrated(ctx, model);
    await seed(db);
    // The indexes earlier versions made: by the column alone (the first ones), or by the column then the id as text.
    const made = (await db.schema.introspect(db)).tables;
    for (const table of ['users', 'posts', 'users_followers']) {
      for (const index of made.get(table)?.indexes ?? []) if (index.name.includes('_by_')) await db.run(`DROP INDEX ${index.name}`);
    }
    await db.run('CREATE INDEX posts_author_id_idx ON posts (author_id)');
    await db.run('CREATE INDEX posts_editor_id_idx ON posts (editor_id, id)');
    await db.run('CREATE INDEX users_followers_target_id_idx ON users_followers (target_id, source_id)');

    const result = await migrate(db, model);
    const steps = result.steps.map((step) => step.description);
    if (db.dialect === 'postgres') {
      // Built without blocking writes, and the old ones dropped only once their replacements are there.
      expect(steps).toEqual([
        'create index users_by_id_idx (concurrently)',
        'create index posts_by_id_idx (concurrently)',
        'create index posts_author_id_by_id_idx (concurrently)',
        'create index posts_editor_id_by_id_idx (concurrently)',
        'drop index posts_author_id_idx (concurrently, once its replacement is built)',
        'drop index posts_editor_id_idx (concurrently, once its replacement is built)',
        'create index users_followers_source_id_by_target_id_idx (concurrently)',
        'create index users_followers_target_id_by_source_id_idx (concurrently)',
        'drop index users_followers_target_id_idx (concurrently, once its replacement is built)',
      ]);
    } else {
      expect(steps).toEqual([
        'create index users_by_id_idx',
        'drop index posts_author_id_idx',
        'drop index posts_editor_id_idx',
        'create index posts_by_id_idx',
        'create index posts_author_id_by_id_idx',
        'create index posts_editor_id_by_id_idx',
        'drop index users_followers_target_id_idx',
        'create index users_followers_source_id_by_target_id_idx',
        'create index users_followers_target_id_by_source_id_idx',
      ]);
    }
    expect(result.steps.some((step) => step.destructive)).toBe(false);
    const now = (await db.schema.introspect(db)).tables;
    expect(now.get('posts')?.indexes.map((index) => index.name)).toEqual(['posts_author_id_by_id_idx', 'posts_by_id_idx', 'posts_editor_id_by_id_idx']);
    expect(now.get('users_followers')?.indexes.map((index) => index.name)).toEqual(['users_followers_source_id_by_target_id_idx', 'users_followers_target_id_by_source_id_idx']);
    expect(await db.all('SELECT id FROM posts ORDER BY id')).toEqual([{ id: 'p1' }, { id: 'p2' }]);
    expect((await migrate(db, model)).steps).toEqual([]);
  });

  it('replaces a different index under an id-ordered index\'s name', async () => {
    const model = modelOf(BASE);
    const db = await migrated(ctx, model);
    await db.run('DROP INDEX posts_author_id_by_id_idx');
    await db.run('CREATE INDEX posts_author_id_by_id_idx ON posts (author_id, id)');
    const concurrently = db.dialect === 'postgres' ? ' (concurrently)' : '';
    expect((await migrate(db, model)).steps.map((step) => step.description)).toEqual(['drop index posts_author_id_by_id_idx', `create index posts_author_id_by_id_idx${concurrently}`]);
    const columns = (await db.schema.introspect(db)).tables.get('posts')?.indexes.find((index) => index.name === 'posts_author_id_by_id_idx')?.columns;
    expect(columns).toEqual(['author_id', ...ID_KEYS[db.dialect]('id')]);
  });

  it('refuses a required field without a default on a table with rows, naming the fix', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    const p = (n: number): string => db.sql.placeholder(n);
    await db.run(`INSERT INTO users (id, name, email) VALUES (${p(0)}, ${p(1)}, ${p(2)})`, ['x1', 'X', 'x1@example.com']);
    const strict = modelOf(BASE.replace('nickname: String', 'nickname: String\n    city: String!'));
    const plan = await migrate(db, strict, { dryRun: true });
    expect(plan.steps.find((step) => step.problem !== undefined)?.problem).toContain('@default');
    expect(formatPlan(plan.steps)).toContain('[blocked]');
    const error = await refusal(migrate(db, strict, { allowDestructive: true }));
    expect(error.detail).toContain('User.city');
    expect(await columns(db, 'users')).not.toContain('city');
    await db.run(`DELETE FROM users`);
    expect((await migrate(db, strict)).applied).toBe(true);
  });
});

describeEachDialect('migrate: what deletes do', (ctx) => {
  it('makes a cascading foreign key restrict (the default) as a constraint change: nothing destructive, every row kept', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await seed(db);
    // As a database made before @relation(onDelete:) holds it: a required to-one cascades, an optional one sets null.
    const restricted = modelOf(BASE.replace('author: User! @relation(onDelete: CASCADE)', 'author: User!').replace('editor: User @relation(onDelete: SET_NULL)', 'editor: User'));
    const result = await migrate(db, restricted);
    expect(result.applied).toBe(true);
    expect(result.steps.filter((step) => step.destructive)).toEqual([]);
    expect(result.steps.map((step) => step.description).join('\n')).toMatch(/make deletes be refused while rows refer to them on posts\.author_id/);
    const posts = (await db.schema.introspect(db)).tables.get('posts');
    expect(posts?.foreignKeys.map((fk) => [fk.column, fk.onDelete]).sort()).toEqual([
      ['author_id', 'restrict'],
      ['editor_id', 'restrict'],
    ]);
    expect(await db.all('SELECT id, author_id, editor_id FROM posts ORDER BY id')).toEqual([
      { id: 'p1', author_id: 'u1', editor_id: 'u2' },
      { id: 'p2', author_id: 'u2', editor_id: null },
    ]);
    // The database itself now refuses what the engine refuses: a user with posts stays.
    await expect(db.run(`DELETE FROM users WHERE id = 'u2'`)).rejects.toMatchObject({ status: 409 });
    expect(await db.all(`SELECT id FROM users ORDER BY id`)).toEqual([{ id: 'u1' }, { id: 'u2' }]);
    expect((await migrate(db, restricted)).steps).toEqual([]);
  });
});

describeEachDialect('migrate: removing fields and types', (ctx) => {
  it('refuses to drop a column without allowDestructive, and drops it with it, keeping all other data', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await seed(db);
    const shrunk = modelOf(BASE.replace('nickname: String', ''));
    const error = await refusal(migrate(db, shrunk));
    expect(error.detail).toContain('drop column users.nickname');
    expect(error.detail).toContain('--allow-destructive');
    expect(await columns(db, 'users')).toContain('nickname');

    const result = await migrate(db, shrunk, { allowDestructive: true });
    expect(result.applied).toBe(true);
    expect(result.steps.every((step) => step.destructive)).toBe(true);
    expect(await columns(db, 'users')).not.toContain('nickname');
    // Rebuilding or altering users must not cascade into the rows that reference it.
    expect(await db.all('SELECT id, name FROM users ORDER BY id')).toEqual([
      { id: 'u1', name: 'Name u1' },
      { id: 'u2', name: 'Name u2' },
    ]);
    expect(await db.all('SELECT id, author_id, editor_id FROM posts ORDER BY id')).toEqual([
      { id: 'p1', author_id: 'u1', editor_id: 'u2' },
      { id: 'p2', author_id: 'u2', editor_id: null },
    ]);
    expect(await db.all('SELECT source_id, target_id FROM users_followers')).toEqual([{ source_id: 'u1', target_id: 'u2' }]);
    // The table still enforces everything it did.
    await expect(db.run(`INSERT INTO users (id, name, email) VALUES ('u3', 'Dup', 'u1@example.com')`)).rejects.toMatchObject({ code: 'UNIQUE_VIOLATION' });
    await db.run(`DELETE FROM users WHERE id = 'u1'`);
    expect(await db.all('SELECT id FROM posts')).toEqual([{ id: 'p2' }]);
    expect((await migrate(db, shrunk)).steps).toEqual([]);
  });

  it('drops a removed type and its join table only with allowDestructive', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    const withoutFollowers = modelOf(BASE.replace('followers: [User!]!', '').replace('following: [User!]!', ''));
    const error = await refusal(migrate(db, withoutFollowers));
    expect(error.detail).toContain('drop table users_followers');
    // A clock split over several rows (PostgreSQL) goes whole; a table whose name starts the same stays.
    await db.run(`INSERT INTO _diglot_clock (table_name, version) VALUES ('users_followers#3', 7), ('users#3', 7)`);
    await migrate(db, withoutFollowers, { allowDestructive: true });
    expect(await tables(db)).not.toContain('users_followers');
    expect((await db.all<{ table_name: string }>('SELECT table_name FROM _diglot_clock ORDER BY table_name')).map((row) => row.table_name)).toEqual(['posts', 'users', 'users#3']);
    expect((await migrate(db, withoutFollowers)).steps).toEqual([]);
  });

  it('leaves tables it did not create alone', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await db.run('CREATE TABLE legacy_things (id text PRIMARY KEY)');
    const result = await migrate(db, modelOf(BASE), { dryRun: true });
    expect(result.steps).toEqual([]);
    expect(await tables(db)).toContain('legacy_things');
  });
});

describeEachDialect('migrate: changing fields', (ctx) => {
  it('allows new enum values freely and removing one only with allowDestructive', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    const wider = modelOf(BASE.replace('enum Role { MEMBER ADMIN }', 'enum Role { MEMBER ADMIN GUEST }'));
    const added = await migrate(db, wider);
    expect(added.steps.map((step) => step.destructive)).not.toContain(true);
    await db.run(`INSERT INTO users (id, name, email, role) VALUES ('g', 'G', 'g@example.com', 'GUEST')`);
    expect((await migrate(db, wider)).steps).toEqual([]);

    const narrower = modelOf(BASE.replace('enum Role { MEMBER ADMIN }', 'enum Role { MEMBER ADMIN OWNER }'));
    await refusal(migrate(db, narrower));
    await db.run(`DELETE FROM users WHERE role = 'GUEST'`);
    await migrate(db, narrower, { allowDestructive: true });
    await expect(db.run(`INSERT INTO users (id, name, email, role) VALUES ('h', 'H', 'h@example.com', 'GUEST')`)).rejects.toMatchObject({
      code: 'INPUT_WRONG_TYPE',
    });
    expect((await migrate(db, narrower)).steps).toEqual([]);
  });

  it('makes a field optional freely, required only with allowDestructive (filling the default in), and changes defaults', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await seed(db);
    const optional = modelOf(BASE.replace('title: String!', 'title: String'));
    expect((await migrate(db, optional)).steps.map((step) => step.destructive)).toEqual([false]);
    await db.run(`UPDATE posts SET title = NULL WHERE id = 'p2'`);

    const required = modelOf(BASE.replace('title: String!', 'title: String! @default(value: "Untitled")'));
    await refusal(migrate(db, required));
    await migrate(db, required, { allowDestructive: true });
    expect(await db.all('SELECT id, title FROM posts ORDER BY id')).toEqual([
      { id: 'p1', title: 'Hello' },
      { id: 'p2', title: 'Untitled' },
    ]);
    expect((await migrate(db, required)).steps).toEqual([]);

    const redefault = modelOf(BASE.replace('@default(value: MEMBER)', '@default(value: ADMIN)'));
    const changed = await migrate(db, redefault);
    expect(changed.steps.map((step) => step.destructive)).not.toContain(true);
    await db.run(`INSERT INTO users (id, name, email) VALUES ('n', 'N', 'n@example.com')`);
    expect(await db.all(`SELECT role FROM users WHERE id = 'n'`)).toEqual([{ role: 'ADMIN' }]);
    expect((await migrate(db, redefault)).steps).toEqual([]);
  });

  it('widens Int to Float without a destructive step and keeps the values', async () => {
    const db = await migrated(ctx, modelOf(BASE.replace('score: Float', 'score: Int')));
    await seed(db);
    await db.run(`UPDATE posts SET score = 3 WHERE id = 'p1'`);
    const result = await migrate(db, modelOf(BASE));
    expect(result.steps.map((step) => step.destructive)).toEqual([false]);
    expect(await db.all(`SELECT score FROM posts WHERE id = 'p1'`)).toEqual([{ score: 3 }]);
    expect((await migrate(db, modelOf(BASE))).steps).toEqual([]);
  });

  it('keeps defaults of every type stable across runs', async () => {
    const typed = modelOf(`
      type Setting {
        id: ID!
        label: String! @default(value: "it's")
        count: Int! @default(value: -3)
        ratio: Float! @default(value: 1.5)
        whole: Float! @default(value: 2)
        on: Boolean! @default(value: true)
        off: Boolean! @default(value: false)
        since: DateTime! @default(value: "2024-01-02T03:04:05.678Z")
        extra: JSON @default(value: { b: 1, a: [true, null] })
        list: [String!] @default(value: ["x"])
      }
    `);
    const db = await migrated(ctx, typed);
    expect((await migrate(db, typed)).steps).toEqual([]);
    await db.run(`INSERT INTO settings (id) VALUES ('s')`);
    const [row] = await db.all('SELECT label, count, ratio, whole, since, extra, list FROM settings');
    expect(row).toMatchObject({ label: "it's", count: -3, ratio: 1.5, whole: 2, since: '2024-01-02T03:04:05.678Z' });
    expect(JSON.parse(String(row?.['extra']))).toEqual({ b: 1, a: [true, null] });
    expect(JSON.parse(String(row?.['list']))).toEqual(['x']);
  });
});

// Two processes on one SQLite file take turns through its lock; two
// connections in one process cannot (better-sqlite3 waits synchronously,
// blocking the other), so this runs where instances really are concurrent.
describePostgres('migrate: two instances at once', (ctx) => {
  it('applies the steps once', async () => {
    const model = modelOf(BASE);
    const [a, b] = [await ctx.open({ model }), await ctx.open({ model })];
    const results = await Promise.all([migrate(a, model), migrate(b, model)]);
    expect(results.map((result) => result.applied).sort()).toEqual([false, true]);
    expect(await a.all(`SELECT version FROM ${MIGRATIONS_TABLE}`)).toHaveLength(1);
  });
});

describePostgres('migrate on PostgreSQL without downtime', (ctx) => {
  const relfilenode = async (db: Database, table: string): Promise<string> =>
    String((await db.all<{ node: string }>(`SELECT relfilenode::text AS node FROM pg_class WHERE relname = '${table}'`))[0]?.node);

  it('adds a required column with a default in one statement, without rewriting the table', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await db.run(`INSERT INTO users (id, name, email) VALUES ('u1', 'A', 'a@example.com')`);
    const before = await relfilenode(db, 'users');
    const result = await migrate(db, modelOf(BASE.replace('nickname: String', 'nickname: String\n    level: Int! @default(value: 3)')));
    expect(result.steps.flatMap((step) => step.sql)).toContain('ALTER TABLE "users" ADD COLUMN "level" integer NOT NULL DEFAULT 3');
    expect(await relfilenode(db, 'users')).toBe(before);
    expect(await db.all('SELECT level FROM users')).toEqual([{ level: 3 }]);
  });

  it('builds an index on an existing table concurrently, and rebuilds one a failed build left invalid', async () => {
    const db = await migrated(ctx, modelOf(BASE));
    await db.run(`INSERT INTO users (id, name, email, nickname) VALUES ('u1', 'A', 'a@example.com', 'same'), ('u2', 'B', 'b@example.com', 'same')`);
    const unique = modelOf(BASE.replace('nickname: String', 'nickname: String @unique'));
    // The duplicates make the concurrent build fail: refused, and no invalid index is left behind.
    await expect(migrate(db, unique)).rejects.toThrow();
    const validity = async (): Promise<unknown[]> =>
      db.all(`SELECT ix.indisvalid AS valid FROM pg_index ix JOIN pg_class c ON c.oid = ix.indexrelid WHERE c.relname = 'users_nickname_key'`);
    expect(await validity()).toEqual([]);
    // As a crash during a build leaves one: an INVALID index of that name.
    await db.run(`CREATE UNIQUE INDEX CONCURRENTLY users_nickname_key ON users (nickname)`).catch(() => undefined);
    expect(await validity()).toEqual([{ valid: false }]);
    await db.run(`UPDATE users SET nickname = 'other' WHERE id = 'u2'`);
    const result = await migrate(db, unique);
    expect(result.steps.map((step) => step.description)).toEqual(['create unique index users_nickname_key (concurrently)']);
    expect(await validity()).toEqual([{ valid: true }]);
    expect((await migrate(db, unique)).steps).toEqual([]);
  });
});
