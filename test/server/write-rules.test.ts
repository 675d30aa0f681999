import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'write-rules-test-secret-0123456789abcdef';
const ADMIN_KEY = 'write-rules-admin-key-0123456789';

/**
 * The example schema's write rules through both styles: the same outcome
 * and the same code for the same change, whoever asks.
 */
describeEachDialect('Write rules, the same in REST and GraphQL', (ctx) => {
  let server: TestServer;
  const auth = new Map<string, Record<string, string>>();
  let alice: string;
  let bob: string;

  const as = (who: string): Record<string, string> => auth.get(who) ?? {};
  const rest = (who: string, method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    http(server.url, method, path, { headers: as(who), ...(body === undefined ? {} : { body }) });
  const graphql = (who: string, query: string): Promise<HttpResponse> => gql(server.url, query, undefined, as(who));
  const codeOf = (response: HttpResponse): string | undefined => response.json?.code ?? response.json?.errors?.[0]?.extensions?.code;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 6, Post: 12, Product: 2, Order: 2, OrderItem: 2 }, linksPerRecord: 1 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const users = (await http(server.url, 'GET', '/users?limit=6&fields=id')).json.data as { id: string }[];
    alice = (users[0] as { id: string }).id;
    bob = (users[1] as { id: string }).id;
    const sign = (sub: string, role: string): Promise<string> =>
      new SignJWT({ sub, role }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    auth.set('alice', { authorization: `Bearer ${await sign(alice, 'MEMBER')}` });
    auth.set('bob', { authorization: `Bearer ${await sign(bob, 'MEMBER')}` });
    auth.set('moderator', { authorization: `Bearer ${await sign('a-moderator', 'MODERATOR')}` });
    auth.set('admin', { authorization: `Bearer ${ADMIN_KEY}` });
  });
  afterAll(async () => {
    await server.close();
  });

  const postCount = async (): Promise<number> => (await rest('admin', 'GET', '/posts?limit=0&count=true')).json.totalCount as number;

  it('lets anyone sign up, but not as an admin', async () => {
    const created = await rest('anonymous', 'POST', '/users', { name: 'New', email: 'new@example.com' });
    expect(created.status).toBe(201);
    const restAdmin = await rest('anonymous', 'POST', '/users', { name: 'Sneaky', email: 'sneaky@example.com', role: 'ADMIN' });
    const graphqlAdmin = await graphql('anonymous', 'mutation { createUser(input: { name: "Sneaky", email: "sneaky2@example.com", role: ADMIN }) { id } }');
    expect(restAdmin.status).toBe(403);
    expect(codeOf(restAdmin)).toBe('FIELD_FORBIDDEN');
    expect(codeOf(graphqlAdmin)).toBe('FIELD_FORBIDDEN');
    expect((await rest('admin', 'GET', '/users?filter[name][eq]=Sneaky&count=true&limit=0')).json.totalCount).toBe(0);
  });

  it('creates a post as its author, and refuses a stranger or a post in someone else’s name', async () => {
    const before = await postCount();
    const anonymous = await rest('anonymous', 'POST', '/posts', { title: 'T', body: 'B' });
    expect(anonymous.status).toBe(403);
    expect(codeOf(anonymous)).toBe('FORBIDDEN');
    expect(codeOf(await graphql('anonymous', 'mutation { createPost(input: { title: "T", body: "B" }) { id } }'))).toBe('FORBIDDEN');
    const forged = await rest('alice', 'POST', '/posts', { title: 'T', body: 'B', author: bob });
    expect(forged.status).toBe(403);
    expect(codeOf(await graphql('alice', `mutation { createPost(input: { title: "T", body: "B", author: "${bob}" }) { id } }`))).toBe('FORBIDDEN');
    expect(await postCount()).toBe(before);
    const own = await rest('alice', 'POST', '/posts', { title: 'Mine', body: 'B' });
    expect(own.status).toBe(201);
    expect(own.json.author).toBe(alice);
    const viaGraphql = await graphql('alice', 'mutation { createPost(input: { title: "Mine too", body: "B" }) { author { id } } }');
    expect(viaGraphql.json.data.createPost.author.id).toBe(alice);
    expect(await postCount()).toBe(before + 2);
  });

  it('lets an author or a moderator edit a post, refuses others with 403, and hides drafts with 404', async () => {
    const published = (await rest('alice', 'POST', '/posts', { title: 'Public', body: 'B', status: 'PUBLISHED' })).json.id as string;
    const draft = (await rest('alice', 'POST', '/posts', { title: 'Draft', body: 'B' })).json.id as string;
    for (const [who, id, status] of [
      ['bob', published, 403],
      ['bob', draft, 404],
      ['anonymous', published, 403],
      ['alice', published, 200],
      ['moderator', draft, 200],
    ] as const) {
      const restAnswer = await rest(who, 'PATCH', `/posts/${id}`, { title: `edited by ${who}` });
      const graphqlAnswer = await graphql(who, `mutation { updatePost(id: "${id}", input: { title: "edited by ${who}" }) { id } }`);
      expect(restAnswer.status, `${who} PATCH`).toBe(status);
      if (status !== 200) expect(codeOf(graphqlAnswer)).toBe(codeOf(restAnswer));
      else expect(graphqlAnswer.json.data.updatePost.id).toBe(id);
    }
    expect((await rest('admin', 'GET', `/posts/${published}?fields=title`)).json.title).toBe('edited by alice');
  });

  it('checks the rule on the stored row: a post written for someone else is not the caller’s, and is never handed over (@immutable)', async () => {
    // Post.author is @immutable: nobody, the admin included, hands a post over; the admin writes one in Bob's name instead.
    const id = (await rest('admin', 'POST', '/posts', { title: 'For Bob', body: 'B', status: 'PUBLISHED', author: bob })).json.id as string;
    const handover = await rest('admin', 'PATCH', `/posts/${id}`, { author: alice });
    expect(handover.status).toBe(409);
    expect(codeOf(handover)).toBe('INPUT_IMMUTABLE_FIELD');
    expect((await rest('alice', 'PATCH', `/posts/${id}`, { title: 'Mine?' })).status).toBe(403);
    expect((await rest('bob', 'PATCH', `/posts/${id}`, { title: 'Mine' })).status).toBe(200);
  });

  it('lets a user delete only themself, in both styles', async () => {
    const victim = (await rest('anonymous', 'POST', '/users', { name: 'Victim', email: 'victim@example.com' })).json.id as string;
    const byStranger = await rest('bob', 'DELETE', `/users/${victim}`);
    expect(byStranger.status).toBe(403);
    expect(codeOf(await graphql('anonymous', `mutation { deleteUser(id: "${victim}") { id } }`))).toBe('FORBIDDEN');
    expect((await rest('admin', 'GET', `/users/${victim}`)).status).toBe(200);
    const token = await new SignJWT({ sub: victim, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    expect((await http(server.url, 'DELETE', `/users/${victim}`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(204);
  });

  it('lets a user follow others through their own list only', async () => {
    expect((await rest('alice', 'PUT', `/users/${alice}/following/${bob}`)).status).toBe(204);
    expect((await rest('alice', 'PUT', `/users/${bob}/following/${alice}`)).status).toBe(403);
    const intoFollowers = await rest('alice', 'PUT', `/users/${bob}/followers/${alice}`);
    expect(intoFollowers.status).toBe(403);
    expect(codeOf(intoFollowers)).toBe('FIELD_FORBIDDEN');
    expect(codeOf(await graphql('alice', `mutation { addUserFollowing(id: "${bob}", targetId: "${alice}") { id } }`))).toBe('FORBIDDEN');
  });

  it('keeps moderation to moderators', async () => {
    const field = await rest('alice', 'PATCH', `/users/${alice}`, { name: 'Alice A.' });
    expect(field.status).toBe(200);
    const products = await rest('alice', 'POST', '/products', { name: 'Free lunch', sku: 'FREE-1', price: 0 });
    expect(products.status).toBe(403);
    expect(codeOf(await graphql('alice', 'mutation { createProduct(input: { name: "Free lunch", sku: "FREE-2", price: 0 }) { id } }'))).toBe('FORBIDDEN');
  });
});
