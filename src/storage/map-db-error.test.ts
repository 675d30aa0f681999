import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { ApiError } from '../errors/api-error.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database } from './dialect.js';
import { migrate } from './migrate/migrate.js';

const loaded = loadSchema([
  {
    file: 'errors.graphql',
    text: `
      type User {
        id: ID!
        name: String!
        email: String! @unique
        role: Role! @default(value: MEMBER)
        posts: [Post!]!
        followers: [User!]!
        following: [User!]!
      }
      enum Role { MEMBER ADMIN }
      type Post { id: ID!  title: String!  author: User! }
    `,
  },
]);
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const model = loaded.model;

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describeEachDialect('database errors as ApiErrors', (ctx) => {
  let db: Database;
  const insertUser = (id: string, email: string, name: string | null = 'Someone', role = 'MEMBER'): Promise<unknown> => {
    const p = (n: number): string => db.sql.placeholder(n);
    return db.run(`INSERT INTO users (id, name, email, role) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)})`, [id, name, email, role]);
  };

  beforeAll(async () => {
    db = await ctx.open({ model });
    await migrate(db, model);
    await insertUser('u1', 'ada@example.com');
  });
  afterAll(async () => {
    await db.close();
  });

  it('a unique violation is UNIQUE_VIOLATION naming the field, not the value', async () => {
    const error = await failure(insertUser('u2', 'ada@example.com'));
    expect(error.code).toBe('UNIQUE_VIOLATION');
    expect(error.status).toBe(409);
    expect(error.detail).toBe('Another User already has this email.');
    expect(error.errors).toEqual([{ pointer: '/email', code: 'UNIQUE_VIOLATION', detail: error.detail }]);
    expect(error.detail).not.toContain('ada@');
  });

  it('a duplicate id is a UNIQUE_VIOLATION too', async () => {
    const error = await failure(insertUser('u1', 'other@example.com'));
    expect(error.code).toBe('UNIQUE_VIOLATION');
    expect(error.errors[0]?.pointer).toBe('/id');
  });

  it('a link that exists already is a UNIQUE_VIOLATION about the link', async () => {
    await insertUser('u3', 'u3@example.com');
    await db.run(`INSERT INTO users_followers (source_id, target_id) VALUES ('u1', 'u3')`);
    const error = await failure(db.run(`INSERT INTO users_followers (source_id, target_id) VALUES ('u1', 'u3')`));
    expect(error.code).toBe('UNIQUE_VIOLATION');
    expect(error.detail).toContain('already linked');
  });

  it('a reference to a missing record is RELATION_TARGET_NOT_FOUND', async () => {
    const error = await failure(db.run(`INSERT INTO posts (id, title, author_id) VALUES ('p1', 'T', 'nobody')`));
    expect(error.code).toBe('RELATION_TARGET_NOT_FOUND');
    // PostgreSQL names the constraint, so the field is known; SQLite does not say which key failed.
    if (ctx.dialect === 'postgres') expect(error.detail).toBe('Post.author: no User has this id.');
  });

  it('a missing required value is INPUT_REQUIRED_FIELD naming the field', async () => {
    const error = await failure(insertUser('u4', 'u4@example.com', null));
    expect(error.code).toBe('INPUT_REQUIRED_FIELD');
    expect(error.detail).toBe('User.name is required.');
    expect(error.errors[0]?.pointer).toBe('/name');
  });

  it('a value outside an enum is INPUT_WRONG_TYPE listing the allowed values', async () => {
    const error = await failure(insertUser('u5', 'u5@example.com', 'X', 'ROOT'));
    expect(error.code).toBe('INPUT_WRONG_TYPE');
    expect(error.detail).toBe('User.role must be one of MEMBER, ADMIN.');
  });

  it('text too large for its index (PostgreSQL: SQLSTATE 54000) is a 400 VALIDATION_FAILED at the field, the index named or not', async () => {
    // 3,000 bytes fit a page but not a B-tree entry (the message names the index); 9,000 fit neither (it does not).
    // Random text, which does not compress: PostgreSQL compresses an entry before it measures it.
    for (const length of [3000, 9000]) {
      const inserted = insertUser(`long${length}`, randomBytes(length).toString('base64').slice(0, length));
      if (ctx.dialect === 'sqlite') {
        await inserted;
        continue;
      }
      const error = await failure(inserted);
      expect(error.code, String(length)).toBe('VALIDATION_FAILED');
      expect(error.status).toBe(400);
      if (length === 3000) {
        expect(error.detail).toBe('The value of User.email is too large for its index.');
        expect(error.errors).toEqual([{ pointer: '/email', code: 'VALIDATION_FAILED', detail: error.detail }]);
      } else {
        expect(error.detail).toBe('A value is too large for the index of its field.');
      }
    }
  });

  it('the error leaves a transaction rolled back', async () => {
    const error = await failure(
      db.transaction(async (tx) => {
        await tx.run(`INSERT INTO posts (id, title, author_id) VALUES ('p2', 'T', 'u1')`);
        await tx.run(`INSERT INTO posts (id, title, author_id) VALUES ('p2', 'T', 'u1')`);
      }),
    );
    expect(error.code).toBe('UNIQUE_VIOLATION');
    expect(await db.all(`SELECT id FROM posts WHERE id = 'p2'`)).toEqual([]);
  });
});
