import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key.js';
import { ApiKeyStore } from '../../src/storage/api-keys.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'rules-matrix-secret-0123456789abcdef';
const ADMIN_KEY = 'rules-matrix-admin-key-0123456789';

const ASKERS = ['anonymous', 'member', 'owner', 'moderator', 'admin', 'apiKey', 'badToken'] as const;
type Asker = (typeof ASKERS)[number];

/** The records a case acts on: the owner's, and the other users'. */
interface Ids {
  readonly owner: string;
  readonly member: string;
  readonly moderator: string;
  readonly published: string;
  readonly draft: string;
  readonly order: string;
}

/** One operation, said in both styles. `view` turns a successful answer into what the rules decide about it. */
interface Operation {
  /** A record of its own, made (by the admin) before each request: what a delete deletes. */
  readonly fresh?: (ids: Ids) => { readonly path: string; readonly body: unknown };
  readonly rest: (ids: Ids, asker: Asker, fresh: string) => { readonly method: string; readonly path: string; readonly body?: unknown };
  readonly graphql: (ids: Ids, asker: Asker, fresh: string) => string;
  readonly view?: { readonly rest: (json: unknown) => string; readonly graphql: (value: unknown) => string };
}

const OK = 'ok';
const U = 'UNAUTHENTICATED';
const F = 'FORBIDDEN';
const FF = 'FIELD_FORBIDDEN';
/** A record the asker may not see: REST 404; GraphQL answers a missing record with null. */
const NF = 'NOT_FOUND';

/** Who gets what, per operation, for every asker: the same table for both styles. */
const EXPECTED: Record<string, Record<Asker, string>> = {
  'read a profile': { anonymous: OK, member: OK, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  'read a private field': { anonymous: FF, member: 'ok:null', owner: 'ok:shown', moderator: 'ok:null', admin: 'ok:shown', apiKey: 'ok:shown', badToken: U },
  'list posts': { anonymous: 'ok:published', member: 'ok:published', owner: 'ok:drafts', moderator: 'ok:drafts', admin: 'ok:drafts', apiKey: 'ok:drafts', badToken: U },
  'read a draft': { anonymous: NF, member: NF, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  'read an order': { anonymous: NF, member: NF, owner: OK, moderator: NF, admin: OK, apiKey: OK, badToken: U },
  'create a post': { anonymous: F, member: OK, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  'update a published post': { anonymous: F, member: F, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  // An anonymous caller may never update a post (both rules need auth.id or a role): refused before the record is looked at, whichever it is.
  'update a draft': { anonymous: F, member: NF, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  'delete a post': { anonymous: F, member: F, owner: OK, moderator: OK, admin: OK, apiKey: OK, badToken: U },
  'update a user': { anonymous: F, member: F, owner: OK, moderator: F, admin: OK, apiKey: OK, badToken: U },
  'set a user’s role': { anonymous: FF, member: FF, owner: FF, moderator: FF, admin: OK, apiKey: OK, badToken: U },
  // The field's write rule is on top of User's update rule (`id == auth.id`): a moderator passes it on their own record only.
  'write a moderation note': { anonymous: FF, member: FF, owner: FF, moderator: F, admin: OK, apiKey: OK, badToken: U },
  'follow (link)': { anonymous: F, member: F, owner: OK, moderator: F, admin: OK, apiKey: OK, badToken: U },
  'unfollow (unlink)': { anonymous: F, member: F, owner: OK, moderator: F, admin: OK, apiKey: OK, badToken: U },
  'link into followers': { anonymous: FF, member: FF, owner: FF, moderator: FF, admin: OK, apiKey: OK, badToken: U },
  'create a product': { anonymous: F, member: F, owner: F, moderator: F, admin: OK, apiKey: OK, badToken: U },
};

/** A post's author: the asker where they are a user, else the owner (the admin writes in their name). */
function authorFor(ids: Ids, asker: Asker): string {
  return asker === 'member' ? ids.member : asker === 'moderator' ? ids.moderator : ids.owner;
}

let unique = 0;

const OPERATIONS: Record<keyof typeof EXPECTED, Operation> = {
  'read a profile': {
    rest: (ids) => ({ method: 'GET', path: `/users/${ids.owner}?fields=id,name` }),
    graphql: (ids) => `{ user(id: "${ids.owner}") { id name } }`,
  },
  'read a private field': {
    rest: (ids) => ({ method: 'GET', path: `/users/${ids.owner}?fields=email` }),
    graphql: (ids) => `{ user(id: "${ids.owner}") { email } }`,
    view: { rest: (json) => shown((json as { email: unknown }).email), graphql: (value) => shown((value as { email: unknown }).email) },
  },
  'list posts': {
    rest: (ids) => ({ method: 'GET', path: `/posts?filter[author][eq]=${ids.owner}&fields=id,status&limit=100` }),
    graphql: (ids) => `{ posts(filter: { author: { eq: "${ids.owner}" } }, first: 100) { id status } }`,
    view: { rest: (json) => drafts((json as { data: unknown }).data), graphql: drafts },
  },
  'read a draft': {
    rest: (ids) => ({ method: 'GET', path: `/posts/${ids.draft}?fields=id` }),
    graphql: (ids) => `{ post(id: "${ids.draft}") { id } }`,
  },
  'read an order': {
    rest: (ids) => ({ method: 'GET', path: `/orders/${ids.order}?fields=id` }),
    graphql: (ids) => `{ order(id: "${ids.order}") { id } }`,
  },
  'create a post': {
    rest: (ids, asker) => ({ method: 'POST', path: '/posts', body: { title: 'T', body: 'B', author: authorFor(ids, asker) } }),
    graphql: (ids, asker) => `mutation { createPost(input: { title: "T", body: "B", author: "${authorFor(ids, asker)}" }) { id } }`,
  },
  'update a published post': {
    rest: (ids) => ({ method: 'PATCH', path: `/posts/${ids.published}`, body: { title: 'Edited' } }),
    graphql: (ids) => `mutation { updatePost(id: "${ids.published}", input: { title: "Edited" }) { id } }`,
  },
  'update a draft': {
    rest: (ids) => ({ method: 'PATCH', path: `/posts/${ids.draft}`, body: { title: 'Edited' } }),
    graphql: (ids) => `mutation { updatePost(id: "${ids.draft}", input: { title: "Edited" }) { id } }`,
  },
  'delete a post': {
    fresh: (ids) => ({ path: '/posts', body: { title: 'Doomed', body: 'B', author: ids.owner, status: 'PUBLISHED' } }),
    rest: (_ids, _asker, fresh) => ({ method: 'DELETE', path: `/posts/${fresh}` }),
    graphql: (_ids, _asker, fresh) => `mutation { deletePost(id: "${fresh}") { id } }`,
  },
  'update a user': {
    rest: (ids) => ({ method: 'PATCH', path: `/users/${ids.owner}`, body: { name: 'Renamed' } }),
    graphql: (ids) => `mutation { updateUser(id: "${ids.owner}", input: { name: "Renamed" }) { id } }`,
  },
  'set a user’s role': {
    rest: (ids) => ({ method: 'PATCH', path: `/users/${ids.owner}`, body: { role: 'MEMBER' } }),
    graphql: (ids) => `mutation { updateUser(id: "${ids.owner}", input: { role: MEMBER }) { id } }`,
  },
  'write a moderation note': {
    rest: (ids) => ({ method: 'PATCH', path: `/users/${ids.owner}`, body: { suspendedReason: 'Spam' } }),
    graphql: (ids) => `mutation { updateUser(id: "${ids.owner}", input: { suspendedReason: "Spam" }) { id } }`,
  },
  'follow (link)': {
    rest: (ids) => ({ method: 'PUT', path: `/users/${ids.owner}/following/${ids.member}` }),
    graphql: (ids) => `mutation { addUserFollowing(id: "${ids.owner}", targetId: "${ids.member}") { id } }`,
  },
  'unfollow (unlink)': {
    rest: (ids) => ({ method: 'DELETE', path: `/users/${ids.owner}/following/${ids.member}` }),
    graphql: (ids) => `mutation { removeUserFollowing(id: "${ids.owner}", targetId: "${ids.member}") { id } }`,
  },
  'link into followers': {
    rest: (ids) => ({ method: 'PUT', path: `/users/${ids.member}/followers/${ids.owner}` }),
    graphql: (ids) => `mutation { addUserFollowers(id: "${ids.member}", targetId: "${ids.owner}") { id } }`,
  },
  'create a product': {
    rest: () => ({ method: 'POST', path: '/products', body: { name: 'P', sku: `SKU-${(unique += 1)}`, price: 1 } }),
    graphql: () => `mutation { createProduct(input: { name: "P", sku: "SKU-${(unique += 1)}", price: 1 }) { id } }`,
  },
};

function shown(value: unknown): string {
  return value === null ? 'null' : 'shown';
}

function drafts(list: unknown): string {
  return (list as { status: string }[]).some((post) => post.status === 'DRAFT') ? 'drafts' : 'published';
}

/**
 * Every operation of the example schema × every kind of asker, through
 * REST and GraphQL, against one table: both styles must give the expected
 * outcome (success, or the same registered code).
 */
describeEachDialect('The example’s rules, operation by asker, in both styles', (ctx) => {
  let server: TestServer;
  let ids: Ids;
  const headers = new Map<Asker, Record<string, string>>();

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 4, Post: 2, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const users = (await http(server.url, 'GET', '/users?limit=3&fields=id')).json.data as { id: string }[];
    const [owner, member, moderator] = users.map((user) => user.id) as [string, string, string];
    const create = async (path: string, body: unknown): Promise<string> => {
      const response = await http(server.url, 'POST', path, { headers: admin, body });
      expect(response.status, `${path} ${response.text}`).toBe(201);
      return response.json.id as string;
    };
    ids = {
      owner,
      member,
      moderator,
      published: await create('/posts', { title: 'Public', body: 'B', author: owner, status: 'PUBLISHED' }),
      draft: await create('/posts', { title: 'Draft', body: 'B', author: owner, status: 'DRAFT' }),
      order: await create('/orders', { customer: owner }),
    };
    const sign = (sub: string, role: string): Promise<string> =>
      new SignJWT({ sub, role }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    const { key, hash } = generateApiKey();
    await new ApiKeyStore(server.db).insert({ id: 'matrix', name: 'matrix', role: 'ADMIN', hash, createdAt: new Date().toISOString() });
    const bearer = (credential: string): Record<string, string> => ({ authorization: `Bearer ${credential}` });
    headers.set('anonymous', {});
    headers.set('member', bearer(await sign(member, 'MEMBER')));
    headers.set('owner', bearer(await sign(owner, 'MEMBER')));
    headers.set('moderator', bearer(await sign(moderator, 'MODERATOR')));
    headers.set('admin', admin);
    headers.set('apiKey', bearer(key));
    headers.set('badToken', bearer('not-a-token-this-server-knows'));
  });
  afterAll(async () => {
    await server.close();
  });

  async function freshId(operation: Operation): Promise<string> {
    if (operation.fresh === undefined) return '';
    const { path, body } = operation.fresh(ids);
    const response = await http(server.url, 'POST', path, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body });
    return response.json.id as string;
  }

  function restOutcome(operation: Operation, response: HttpResponse): string {
    if (response.status >= 300) return response.json?.code as string;
    return operation.view === undefined ? OK : `${OK}:${operation.view.rest(response.json)}`;
  }

  function graphqlOutcome(operation: Operation, response: HttpResponse): string {
    const errors = response.json.errors as { extensions: { code: string } }[] | undefined;
    if (errors !== undefined && errors.length > 0) return (errors[0] as { extensions: { code: string } }).extensions.code;
    const [value] = Object.values(response.json.data as Record<string, unknown>);
    if (value === null) return NF;
    return operation.view === undefined ? OK : `${OK}:${operation.view.graphql(value)}`;
  }

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(name, async () => {
      const operation = OPERATIONS[name] as Operation;
      const seen: Record<string, string> = {};
      for (const asker of ASKERS) {
        const request = operation.rest(ids, asker, await freshId(operation));
        const answer = await http(server.url, request.method, request.path, { headers: headers.get(asker), ...(request.body === undefined ? {} : { body: request.body }) });
        seen[`REST ${asker}`] = restOutcome(operation, answer);
        const query = operation.graphql(ids, asker, await freshId(operation));
        seen[`GraphQL ${asker}`] = graphqlOutcome(operation, await gql(server.url, query, undefined, headers.get(asker)));
      }
      const want = Object.fromEntries(ASKERS.flatMap((asker) => [[`REST ${asker}`, expected[asker]], [`GraphQL ${asker}`, expected[asker]]]));
      expect(seen).toEqual(want);
    });
  }
});
