import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { EventMessage } from '../../src/events/event-hub.js';
import { createFileService } from '../../src/files/file-service.js';
import { loadSchema } from '../../src/schema/load-schema.js';
import { createServer, eventsOf } from '../../src/server/create-server.js';
import type { Database } from '../../src/storage/dialect.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { gql } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { keyOf, putFile } from '../support/uploads.js';

const SECRET = 'on-delete-test-secret-0123456789abcdef';
const ADMIN_KEY = 'on-delete-admin-key-0123456789abcdef';
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

/**
 * Authors write articles (deleted with them), which carry remarks (deleted
 * with their article, and replies with the remark they answer); notes hold
 * an author back (RESTRICT, the default); bookmarks forget a deleted article
 * (SET_NULL). Locked articles and hidden remarks are ones no member may
 * delete: a cascade reaching them is refused as a direct delete would be.
 */
const SCHEMA = `
enum Role @roles(admin: "ADMIN") {
  MEMBER
  ADMIN
}

type Author @allow(read: "true", create: "true", update: "true", delete: "true") {
  id: ID!
  name: String!
  photo(size: Int): String @image(sizes: [64])
  articles: [Article!]!
}

type Article @allow(read: "true", create: "true", update: "true", delete: "locked == false") {
  id: ID!
  title: String!
  author: Author! @relation(onDelete: CASCADE)
  locked: Boolean! @default(value: false)
  cover(size: Int): String @image(sizes: [64])
  remarks: [Remark!]!
}

type Remark @allow(read: "hidden == false", create: "true", delete: "true") {
  id: ID!
  text: String!
  article: Article! @relation(onDelete: CASCADE)
  replyTo: Remark @relation(onDelete: CASCADE)
  hidden: Boolean! @default(value: false)
}

type Note @allow(read: "secret == false", create: "true", delete: "true") {
  id: ID!
  author: Author!
  secret: Boolean! @default(value: false)
}

type Bookmark @allow(read: "true", create: "true", update: "true", delete: "true") {
  id: ID!
  label: String!
  article: Article @relation(onDelete: SET_NULL)
  updatedAt: DateTime! @updatedAt
}
`;

/** Records one delete may take with it here (the engine's option): the cap test goes past it. */
const MAX_CASCADE = 8;

/**
 * What a delete does to the records pointing at the deleted one, as the
 * schema declares it with @relation(onDelete:), the same in REST and
 * GraphQL, on both databases: RESTRICT refuses (409, counted as far as the
 * asker may see), CASCADE removes across levels with an event for each
 * record and its files released, under the rules of each record removed,
 * SET_NULL clears (an update, with its event), and a cascade has a ceiling.
 */
describeEachDialect('What a delete does to the records pointing at it', (ctx) => {
  let url: string;
  let db: Database;
  let close: () => Promise<void>;
  let filesDir: string;
  let events: () => Promise<EventMessage[]>;

  /** Records no member may read (secret notes, hidden remarks) are made by the admin, who can read them back. */
  const create = async (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> => {
    const response = await http(url, 'POST', path, { body, headers });
    expect(response.status, response.text).toBe(201);
    return response.json.id as string;
  };
  const problem = (response: HttpResponse): unknown => ({ status: response.status, code: response.json?.code, detail: response.json?.detail, relation: response.json?.relation, count: response.json?.count });
  const graphqlError = (response: HttpResponse): unknown => {
    const error = response.json?.errors?.[0];
    return { code: error?.extensions?.code, message: error?.message, relation: error?.extensions?.relation, count: error?.extensions?.count };
  };
  const exists = async (path: string): Promise<boolean> => (await http(url, 'GET', path, { headers: ADMIN })).status === 200;

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'on-delete.graphql', text: SCHEMA }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    db = await ctx.open();
    await migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
    filesDir = mkdtempSync(join(tmpdir(), 'diglot-on-delete-'));
    const engine = createEngine(loaded.model, db, { files: createFileService({ directory: filesDir }), maxCascade: MAX_CASCADE });
    const app = await createServer({ engine, logger: false, auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    url = `http://127.0.0.1:${address.port}`;
    const received: EventMessage[] = [];
    eventsOf(app).subscribe((batch) => received.push(...batch));
    events = async () => {
      await eventsOf(app).settle();
      return received.splice(0);
    };
    close = async () => {
      await app.close();
      await db.close();
      rmSync(filesDir, { recursive: true, force: true });
    };
  });
  afterAll(() => close());

  it('RESTRICT (the default) refuses with 409 RELATION_CONFLICT naming the relation and counting the records the asker may see, in both styles', async () => {
    const author = await create('/authors', { name: 'Held back' });
    await create('/notes', { author });
    await create('/notes', { author });
    await create('/notes', { author, secret: true }, ADMIN);
    await events();
    const detail = '2 notes (Note.author) refer to this Author: delete or change them first, or declare @relation(onDelete: CASCADE) or SET_NULL on Note.author.';
    expect(problem(await http(url, 'DELETE', `/authors/${author}`))).toEqual({ status: 409, code: 'RELATION_CONFLICT', detail, relation: 'Note.author', count: 2 });
    expect(graphqlError(await gql(url, `mutation { deleteAuthor(id: "${author}") { id } }`))).toEqual({ code: 'RELATION_CONFLICT', message: detail, relation: 'Note.author', count: 2 });
    // The admin sees every note, the secret one too.
    expect(problem(await http(url, 'DELETE', `/authors/${author}`, { headers: ADMIN }))).toMatchObject({ status: 409, count: 3 });
    expect(await exists(`/authors/${author}`)).toBe(true);
    expect(await events()).toEqual([]);
  });

  it('RESTRICT held by records the asker may not see says only that some exist: no count', async () => {
    const author = await create('/authors', { name: 'Secretly held' });
    await create('/notes', { author, secret: true }, ADMIN);
    const refused = await http(url, 'DELETE', `/authors/${author}`);
    expect(problem(refused)).toEqual({
      status: 409,
      code: 'RELATION_CONFLICT',
      detail: 'Records of Note (Note.author) refer to this Author: delete or change them first, or declare @relation(onDelete: CASCADE) or SET_NULL on Note.author.',
      relation: 'Note.author',
      count: undefined,
    });
    expect(Object.keys(refused.json as object)).not.toContain('count');
    expect(await exists(`/authors/${author}`)).toBe(true);
  });

  it('CASCADE removes across levels (replies to replies included) with an event for every record, releases their files, and SET_NULL clears as an update', async () => {
    const author = await create('/authors', { name: 'Leaving' });
    const photo = keyOf((await putFile(url, `/authors/${author}/photo`, await png(301))).json.photo as string);
    const first = await create('/articles', { title: 'First', author });
    const second = await create('/articles', { title: 'Second', author });
    const cover = keyOf((await putFile(url, `/articles/${first}/cover`, await png(302))).json.cover as string);
    const remark = await create('/remarks', { text: 'Nice', article: first });
    const reply = await create('/remarks', { text: 'Thanks', article: second, replyTo: remark });
    const replyToReply = await create('/remarks', { text: 'Welcome', article: second, replyTo: reply });
    const bookmark = await create('/bookmarks', { label: 'Read later', article: first });
    const kept = await create('/bookmarks', { label: 'Elsewhere' });
    const bookmarkBefore = (await http(url, 'GET', `/bookmarks/${bookmark}`)).json as Record<string, unknown>;
    const list = await http(url, 'GET', '/remarks');
    expect((await fetch(`${url}/files/${cover}/64`)).status).toBe(200);
    await events();

    expect((await http(url, 'DELETE', `/authors/${author}`)).status).toBe(204);

    for (const path of [`/authors/${author}`, `/articles/${first}`, `/articles/${second}`, `/remarks/${remark}`, `/remarks/${reply}`, `/remarks/${replyToReply}`]) {
      expect(await exists(path), path).toBe(false);
    }
    const cleared = (await http(url, 'GET', `/bookmarks/${bookmark}`)).json as Record<string, unknown>;
    expect(cleared).toMatchObject({ id: bookmark, label: 'Read later', article: null });
    expect(cleared['updatedAt']).not.toBe(bookmarkBefore['updatedAt']);
    expect((await http(url, 'GET', `/bookmarks/${kept}`)).json).toMatchObject({ label: 'Elsewhere', article: null });
    // The files of removed records are gone: not served, not on disk.
    for (const key of [photo, cover]) expect((await fetch(`${url}/files/${key}/64`)).status, key).toBe(404);
    // The tables' clocks moved: a cached list revalidates to a new answer.
    expect((await http(url, 'GET', '/remarks', { headers: { 'if-none-match': list.headers.get('etag') ?? '' } })).status).toBe(200);

    const seen = await events();
    const summary = seen.map((event) => [event.type, event.data.id]).sort();
    expect(summary).toEqual(
      [
        ['article.deleted', first],
        ['article.deleted', second],
        ['author.deleted', author],
        ['bookmark.updated', bookmark],
        ['remark.deleted', remark],
        ['remark.deleted', reply],
        ['remark.deleted', replyToReply],
      ].sort(),
    );
    expect(new Set(seen.map((event) => event.id)).size).toBe(seen.length);
    const byId = new Map(seen.map((event) => [event.data.id, event]));
    expect(byId.get(first)?.data).toMatchObject({ record: null, previous: { id: first, title: 'First', author, cover: `/files/${cover}` } });
    expect(byId.get(replyToReply)?.data).toMatchObject({ record: null, previous: { id: replyToReply, text: 'Welcome', replyTo: reply } });
    expect(byId.get(bookmark)?.data).toMatchObject({ previous: { article: first, label: 'Read later' }, record: { article: null, label: 'Read later' } });
    expect(byId.get(bookmark)?.data.record).toEqual(cleared);
    for (const event of seen) expect(event.principal).toEqual(seen[0]?.principal);
  });

  it('GraphQL deleteAuthor cascades the same way and returns the author as it was', async () => {
    const author = await create('/authors', { name: 'Leaving by GraphQL' });
    const article = await create('/articles', { title: 'Only one', author });
    await events();
    const response = await gql(url, `mutation { deleteAuthor(id: "${author}") { id name } }`);
    expect(response.json).toEqual({ data: { deleteAuthor: { id: author, name: 'Leaving by GraphQL' } } });
    expect(await exists(`/articles/${article}`)).toBe(false);
    expect((await events()).map((event) => event.type).sort()).toEqual(['article.deleted', 'author.deleted']);
  });

  it('a cascade reaching records the asker may not delete, or not see, is refused with 403 RELATION_CASCADE_FORBIDDEN, nothing deleted, in both styles', async () => {
    const author = await create('/authors', { name: 'Has a locked article' });
    const locked = await create('/articles', { title: 'Locked', author, locked: true });
    await create('/articles', { title: 'Free', author });
    // A hidden remark two levels down: the asker cannot see it, so cannot delete it.
    const other = await create('/authors', { name: 'Has a hidden remark' });
    const article = await create('/articles', { title: 'Open', author: other });
    const hidden = await create('/remarks', { text: 'Hidden', article, hidden: true }, ADMIN);
    await events();
    const detail = 'Deleting this Author would delete Article records (Article.author, onDelete: CASCADE) that you may not delete.';
    expect(problem(await http(url, 'DELETE', `/authors/${author}`))).toEqual({ status: 403, code: 'RELATION_CASCADE_FORBIDDEN', detail, relation: 'Article.author', count: undefined });
    expect(graphqlError(await gql(url, `mutation { deleteAuthor(id: "${author}") { id } }`))).toEqual({ code: 'RELATION_CASCADE_FORBIDDEN', message: detail, relation: 'Article.author', count: undefined });
    // As a direct delete of the locked article is.
    expect((await http(url, 'DELETE', `/articles/${locked}`)).status).toBe(403);
    expect(await exists(`/authors/${author}`)).toBe(true);
    expect(await exists(`/articles/${locked}`)).toBe(true);

    expect(problem(await http(url, 'DELETE', `/authors/${other}`))).toMatchObject({ status: 403, code: 'RELATION_CASCADE_FORBIDDEN', relation: 'Remark.article' });
    expect(await exists(`/articles/${article}`)).toBe(true);
    expect(await exists(`/remarks/${hidden}`)).toBe(true);
    expect(await events()).toEqual([]);

    // The admin role may delete anything, and does.
    expect((await http(url, 'DELETE', `/authors/${author}`, { headers: ADMIN })).status).toBe(204);
    expect(await exists(`/articles/${locked}`)).toBe(false);
  });

  it(`a cascade past ${MAX_CASCADE} records is 409 RELATION_CASCADE_TOO_LARGE and deletes nothing; at the limit it goes through`, async () => {
    const author = await create('/authors', { name: 'Prolific' });
    const articles: string[] = [];
    for (let i = 0; i <= MAX_CASCADE; i++) articles.push(await create('/articles', { title: `Article ${i}`, author }));
    await events();
    const refused = await http(url, 'DELETE', `/authors/${author}`);
    expect(problem(refused)).toMatchObject({ status: 409, code: 'RELATION_CASCADE_TOO_LARGE', relation: 'Article.author' });
    expect(refused.json.limit).toBe(MAX_CASCADE);
    expect(graphqlError(await gql(url, `mutation { deleteAuthor(id: "${author}") { id } }`))).toMatchObject({ code: 'RELATION_CASCADE_TOO_LARGE' });
    for (const article of articles) expect(await exists(`/articles/${article}`)).toBe(true);
    expect(await events()).toEqual([]);
    expect((await http(url, 'DELETE', `/articles/${articles[0] as string}`)).status).toBe(204);
    expect((await http(url, 'DELETE', `/authors/${author}`)).status).toBe(204);
    expect((await events()).length).toBe(1 + 1 + MAX_CASCADE);
  });

  it('a row the schema does not know holding the record (a table of someone else’s) is 409 RELATION_CONFLICT from the database, never a 500', async () => {
    const author = await create('/authors', { name: 'Held from outside' });
    await db.run(`CREATE TABLE legacy_links (id TEXT PRIMARY KEY, author_id TEXT REFERENCES authors (id))`);
    await db.run(`INSERT INTO legacy_links (id, author_id) VALUES ('l1', ${db.sql.placeholder(0)})`, [author]);
    const refused = await http(url, 'DELETE', `/authors/${author}`);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('RELATION_CONFLICT');
    expect(graphqlError(await gql(url, `mutation { deleteAuthor(id: "${author}") { id } }`))).toMatchObject({ code: 'RELATION_CONFLICT' });
    expect(await exists(`/authors/${author}`)).toBe(true);
  });
});

/**
 * The example schema as shipped states its choices: deleting a user takes
 * their posts (and their covers) with them, and is refused while they have
 * orders, which are the shop's records.
 */
describeEachDialect('Deleting a user of the example schema', (ctx) => {
  let server: TestServer;
  const received: EventMessage[] = [];
  const sign = (sub: string): Promise<string> =>
    new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 4, Post: 4, Product: 2, Order: 4, OrderItem: 4 }, linksPerRecord: 1, pictures: 0 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    eventsOf(server.app).subscribe((batch) => received.push(...batch));
  });
  afterAll(() => server.close());

  it('with orders: 409 RELATION_CONFLICT naming Order.customer and counting them, in both styles; nothing deleted', async () => {
    const order = ((await http(server.url, 'GET', '/orders?limit=1&fields=customer', { headers: ADMIN })).json.data as { customer: string }[])[0];
    const customer = order?.customer as string;
    const orders = (await http(server.url, 'GET', `/users/${customer}/orders?fields=id&limit=100`, { headers: ADMIN })).json.data as unknown[];
    const auth = { authorization: `Bearer ${await sign(customer)}` };
    const refused = await http(server.url, 'DELETE', `/users/${customer}`, { headers: auth });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'RELATION_CONFLICT', relation: 'Order.customer', count: orders.length });
    expect(refused.json.detail).toMatch(new RegExp(`^${orders.length} orders? \\(Order\\.customer\\) refers? to this User`));
    const graphql = await gql(server.url, `mutation { deleteUser(id: "${customer}") { id } }`, undefined, auth);
    expect(graphql.json.errors[0].extensions).toMatchObject({ code: 'RELATION_CONFLICT', relation: 'Order.customer', count: orders.length });
    expect((await http(server.url, 'GET', `/users/${customer}`, { headers: ADMIN })).status).toBe(200);
  });

  it('without orders: their posts go with them, each with a post.deleted event, their covers released', async () => {
    const user = (await http(server.url, 'POST', '/users', { body: { name: 'Leaving', email: `leaving-${ctx.dialect}@example.com` } })).json.id as string;
    const auth = { authorization: `Bearer ${await sign(user)}` };
    const posts: string[] = [];
    for (const title of ['One', 'Two']) {
      const created = await http(server.url, 'POST', '/posts', { body: { title, body: 'text' }, headers: auth });
      expect(created.status, created.text).toBe(201);
      posts.push(created.json.id as string);
    }
    const cover = keyOf((await putFile(server.url, `/posts/${posts[0] as string}/cover`, await png(401), 'cover.png', 'image/png', auth)).json.cover as string);
    await eventsOf(server.app).settle();
    received.splice(0);
    expect((await http(server.url, 'DELETE', `/users/${user}`, { headers: auth })).status).toBe(204);
    for (const post of posts) expect((await http(server.url, 'GET', `/posts/${post}`, { headers: ADMIN })).status).toBe(404);
    expect((await fetch(`${server.url}/files/${cover}/320`)).status).toBe(404);
    await eventsOf(server.app).settle();
    expect(received.map((event) => [event.type, event.data.id]).sort()).toEqual(
      [['post.deleted', posts[0]], ['post.deleted', posts[1]], ['user.deleted', user]].sort(),
    );
  });
});
