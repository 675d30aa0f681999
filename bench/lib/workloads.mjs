// W0–W10: each one the same question asked of each peer in its own dialect
// (REST paths, GraphQL documents, PostGraphile's inflected names,
// json-server's query parameters). A builder returns the autocannon request
// sequence for one peer — every connection cycles through it — after any
// set-up it needs (walking pages for cursors, fetching ETags, registering a
// persisted query), or `{ skip }` with the reason it cannot run.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memberAuthorization } from './member-token.mjs';

const USER_FIELDS =
  'id name email username profilePicture bio pronouns location website company jobTitle phone birthday timezone locale role isVerified isPrivate emailNotifications theme interests preferences suspendedReason lastSeenAt handle createdAt updatedAt';
const PGL_USER_FIELDS = USER_FIELDS.replace(/^id /, 'rowId ');
const HAND_POST_FIELDS = 'id title body authorId status publishedAt tags cover createdAt updatedAt';
const PGL_POST_FIELDS = 'rowId title body authorId status publishedAt tags cover createdAt updatedAt';

/** The W4 document, with the id as a variable so one text (and one persisted hash) serves every user. */
export const W4_QUERY = 'query W4($id: ID!) { user(id: $id) { name posts(first: 10) { title } followers(first: 10) { name } } }';
const W4_PGL =
  'query W4($id: String!) { userByRowId(rowId: $id) { name postsByAuthorId(first: 10, orderBy: PRIMARY_KEY_ASC) { nodes { title } } usersFollowersBySourceId(first: 10, orderBy: PRIMARY_KEY_ASC) { nodes { userByTargetId { name } } } } }';
export const W5_QUERY = 'query W5 { users(first: 50) { name posts(first: 5) { title } } }';
const W5_PGL = 'query W5 { allUsers(first: 50, orderBy: PRIMARY_KEY_ASC) { nodes { name postsByAuthorId(first: 5, orderBy: PRIMARY_KEY_ASC) { nodes { title } } } } }';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
/** Pages 2–26 of the users in id order (page 1 is left out: it is where new records would appear). */
const PAGES = 25;

const get = (path, headers) => (headers === undefined ? { method: 'GET', path } : { method: 'GET', path, headers });
const gql = (query, variables) => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify(variables === undefined ? { query } : { query, variables }) });
const perId = (ids, make) => ids.map(make);
const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** Keyset pages walked through a REST list that answers `{ data, nextCursor }`: Diglot's and the hand-written one. */
async function restPages(ctx) {
  const paths = ['/users?limit=20'];
  while (paths.length <= PAGES) {
    const { status, json } = await ctx.call(get(paths.at(-1)));
    if (status !== 200 || typeof json?.nextCursor !== 'string') throw new Error(`walking /users pages: status ${status}`);
    paths.push(`/users?limit=20&after=${encodeURIComponent(json.nextCursor)}`);
  }
  return paths.slice(1).map((path) => get(path));
}

async function mercuriusPages(ctx) {
  const query = `query W2($after: ID) { users(first: 20, after: $after) { ${USER_FIELDS} } }`;
  const requests = [gql(query, {})];
  while (requests.length <= PAGES) {
    const { json } = await ctx.call(requests.at(-1));
    const last = json?.data?.users?.at(-1)?.id;
    if (last === undefined) throw new Error('walking users pages: no last id');
    requests.push(gql(query, { after: last }));
  }
  return requests.slice(1);
}

async function postgraphilePages(ctx) {
  const query = `query W2($after: Cursor) { allUsers(first: 20, after: $after, orderBy: PRIMARY_KEY_ASC) { nodes { ${PGL_USER_FIELDS} } pageInfo { hasNextPage endCursor } } }`;
  const requests = [gql(query, {})];
  while (requests.length <= PAGES) {
    const { json } = await ctx.call(requests.at(-1));
    const cursor = json?.data?.allUsers?.pageInfo?.endCursor;
    if (typeof cursor !== 'string') throw new Error('walking allUsers pages: no endCursor');
    requests.push(gql(query, { after: cursor }));
  }
  return requests.slice(1);
}

/** GETs each path once and sends its ETag back as If-None-Match: a client revalidating what it has. */
async function revalidations(ctx, paths) {
  const requests = [];
  for (const path of paths) {
    const { status, headers } = await ctx.call(get(path));
    const etag = headers.get('etag');
    if (status !== 200 || etag === null) return { skip: `GET ${path} answered ${status}${etag === null ? ' without an ETag' : ''}` };
    requests.push(get(path, { 'if-none-match': etag }));
  }
  return { requests, expect: 304 };
}

/** POST /users with a new e-mail address each time (e-mail is unique). */
function createUsers(peerName) {
  const tag = `${Date.now().toString(36)}${peerName.replace(/[^a-z]/g, '')}`;
  let counter = 0;
  return {
    requests: [
      {
        method: 'POST',
        path: '/users',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          counter++;
          request.body = JSON.stringify({ name: 'Bench User', email: `bench.${tag}.${counter}@example.com` });
          return request;
        },
      },
    ],
    expect: 201,
    note: peerName === 'json-server' ? 'json-server writes the whole db.json (about 50 MB here) again after every create' : undefined,
  };
}

const ceiling = { 'node-http': () => ({ requests: [get('/')] }), 'fastify-fixed': () => ({ requests: [get('/')] }) };
const ids4 = (ctx) => ctx.ids;

export const WORKLOADS = [
  {
    id: 'W0',
    title: 'fixed pre-serialized body (ceiling)',
    peers: { ...ceiling },
  },
  {
    id: 'W1',
    title: 'GET /users/<id>, all fields',
    rest: true,
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'diglot-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'fastify-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'fastify-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'lean-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'lean-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'json-server': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'mercurius-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(`query W1($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, { id })) }),
      'mercurius-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(`query W1($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`, { id })) }),
      postgraphile: (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(`query W1($id: String!) { userByRowId(rowId: $id) { ${PGL_USER_FIELDS} } }`, { id })) }),
    },
  },
  {
    id: 'W2',
    title: 'a page of 20 users (keyset pages; json-server: offset pages)',
    rest: true,
    peers: {
      'diglot-sqlite': async (ctx) => ({ requests: await restPages(ctx) }),
      'diglot-pg': async (ctx) => ({ requests: await restPages(ctx) }),
      'fastify-sqlite': async (ctx) => ({ requests: await restPages(ctx) }),
      'fastify-pg': async (ctx) => ({ requests: await restPages(ctx) }),
      'json-server': () => ({ requests: Array.from({ length: PAGES }, (_, page) => get(`/users?_page=${page + 2}&_per_page=20`)) }),
      'mercurius-sqlite': async (ctx) => ({ requests: await mercuriusPages(ctx) }),
      'mercurius-pg': async (ctx) => ({ requests: await mercuriusPages(ctx) }),
      postgraphile: async (ctx) => ({ requests: await postgraphilePages(ctx) }),
    },
  },
  {
    id: 'W3',
    title: "GET /users/<id>/posts, the newest 10",
    rest: true,
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'diglot-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'fastify-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'fastify-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'lean-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'lean-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}/posts?sort=-createdAt&limit=10`)) }),
      'json-server': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/posts?author=${id}&_sort=-createdAt&_page=1&_per_page=10`)) }),
      'mercurius-sqlite': (ctx) =>
        ({ requests: perId(ids4(ctx), (id) => gql(`query W3($id: ID!) { user(id: $id) { posts(first: 10, newestFirst: true) { ${HAND_POST_FIELDS} } } }`, { id })) }),
      'mercurius-pg': (ctx) =>
        ({ requests: perId(ids4(ctx), (id) => gql(`query W3($id: ID!) { user(id: $id) { posts(first: 10, newestFirst: true) { ${HAND_POST_FIELDS} } } }`, { id })) }),
      postgraphile: (ctx) => ({
        requests: perId(ids4(ctx), (id) =>
          gql(`query W3($id: String!) { userByRowId(rowId: $id) { postsByAuthorId(first: 10, orderBy: [CREATED_AT_DESC, PRIMARY_KEY_DESC]) { nodes { ${PGL_POST_FIELDS} } } } }`, { id }),
        ),
      }),
    },
  },
  {
    id: 'W4',
    title: 'GraphQL user(id) { name posts(first: 10) { title } followers(first: 10) { name } }',
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'diglot-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'mercurius-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'mercurius-batched-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'mercurius-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      postgraphile: (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_PGL, { id })) }),
    },
  },
  {
    id: 'W5',
    title: 'GraphQL users(first: 50) { name posts(first: 5) { title } }',
    peers: {
      'diglot-sqlite': () => ({ requests: [gql(W5_QUERY)] }),
      'diglot-pg': () => ({ requests: [gql(W5_QUERY)] }),
      'mercurius-sqlite': () => ({ requests: [gql(W5_QUERY)] }),
      'mercurius-batched-sqlite': () => ({ requests: [gql(W5_QUERY)] }),
      'mercurius-pg': () => ({ requests: [gql(W5_QUERY)] }),
      postgraphile: () => ({ requests: [gql(W5_PGL)] }),
    },
  },
  {
    id: 'W1a',
    title: "W1 under the example's @allow rules: anonymous, and as a member (HS256 JWT), against anonymous on the open schema",
    rest: true,
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      'diglot-rules-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}`)) }),
      // One token for the whole run, as a signed-in client sends it: verified once, then found in the server's cache.
      'diglot-member-sqlite': (ctx) => {
        const auth = memberAuthorization();
        return { requests: perId(ids4(ctx), (id) => get(`/users/${id}`, auth)) };
      },
    },
  },
  {
    id: 'W4a',
    title: "W4 under the example's @allow rules: anonymous, and as a member (HS256 JWT), against anonymous on the open schema",
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'diglot-rules-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => gql(W4_QUERY, { id })) }),
      'diglot-member-sqlite': (ctx) => {
        const headers = { ...JSON_HEADERS, ...memberAuthorization() };
        return { requests: perId(ids4(ctx), (id) => ({ ...gql(W4_QUERY, { id }), headers })) };
      },
    },
  },
  {
    id: 'W6',
    title: 'POST /users (create; Diglot also writes its outbox event and change clock)',
    rest: true,
    write: true,
    peers: {
      'diglot-sqlite': () => createUsers('diglot-sqlite'),
      'diglot-pg': () => createUsers('diglot-pg'),
      'fastify-sqlite': () => createUsers('fastify-sqlite'),
      'fastify-pg': () => createUsers('fastify-pg'),
      'lean-sqlite': () => createUsers('lean-sqlite'),
      'lean-pg': () => createUsers('lean-pg'),
      'json-server': () => createUsers('json-server'),
    },
  },
  {
    id: 'W7',
    title: 'GET /users/<id> with a matching If-None-Match (304)',
    rest: true,
    peers: {
      ...ceiling,
      'diglot-sqlite': (ctx) => revalidations(ctx, ctx.ids.map((id) => `/users/${id}`)),
      'diglot-pg': (ctx) => revalidations(ctx, ctx.ids.map((id) => `/users/${id}`)),
      'fastify-sqlite': (ctx) => revalidations(ctx, ctx.ids.map((id) => `/users/${id}`)),
      'fastify-pg': (ctx) => revalidations(ctx, ctx.ids.map((id) => `/users/${id}`)),
      'json-server': (ctx) => revalidations(ctx, ctx.ids.map((id) => `/users/${id}`)),
    },
  },
  {
    id: 'W8',
    title: 'the W4 query as a persisted GET with a matching If-None-Match (304)',
    peers: {
      ...ceiling,
      'diglot-sqlite': (ctx) => persistedRevalidations(ctx),
      'diglot-pg': (ctx) => persistedRevalidations(ctx),
      'mercurius-sqlite': (ctx) => mercuriusPersisted(ctx),
    },
  },
  {
    id: 'W9',
    title: 'GET /users/<id>?include=posts,followers (10 each), against the same data as three requests',
    rest: true,
    peers: {
      'diglot-sqlite': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}?include=posts,followers&posts.limit=10&followers.limit=10`)) }),
      'diglot-pg': (ctx) => ({ requests: perId(ids4(ctx), (id) => get(`/users/${id}?include=posts,followers&posts.limit=10&followers.limit=10`)) }),
      'fastify-sqlite': (ctx) => threeRequests(ctx),
      'fastify-pg': (ctx) => threeRequests(ctx),
    },
  },
  {
    id: 'W10',
    title: 'a resized profilePicture variant, already cached',
    peers: {
      ...ceiling,
      'diglot-sqlite': (ctx) => pictureVariants(ctx),
      'diglot-pg': (ctx) => pictureVariants(ctx),
      'fastify-sqlite': (ctx) => staticVariants(ctx),
    },
  },
];

function threeRequests(ctx) {
  const requests = ctx.ids.flatMap((id) => [get(`/users/${id}`), get(`/users/${id}/posts?limit=10`), get(`/users/${id}/followers?limit=10`)]);
  return { requests, perOp: 3, note: 'one operation = 3 requests (user, posts, followers)' };
}

async function persistedRevalidations(ctx) {
  const extensions = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: sha256(W4_QUERY) } }));
  const requests = [];
  for (const id of ctx.ids) {
    const variables = encodeURIComponent(JSON.stringify({ id }));
    // The first GET carries the text and registers the hash (automatic persisted queries); later ones send the hash alone.
    const first = await ctx.call(get(`/graphql?query=${encodeURIComponent(W4_QUERY)}&variables=${variables}&extensions=${extensions}`, { accept: 'application/json' }));
    const etag = first.headers.get('etag');
    if (first.status !== 200 || etag === null) return { skip: `persisted GET answered ${first.status}${etag === null ? ' without an ETag' : ''}` };
    requests.push(get(`/graphql?variables=${variables}&extensions=${extensions}`, { accept: 'application/json', 'if-none-match': etag }));
  }
  return { requests, expect: 304 };
}

async function mercuriusPersisted(ctx) {
  const persistedQuery = { version: 1, sha256Hash: sha256(W4_QUERY) };
  const extensions = encodeURIComponent(JSON.stringify({ persistedQuery }));
  const registered = await ctx.call({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: W4_QUERY, variables: { id: '1' }, extensions: { persistedQuery } }) });
  if (registered.status !== 200) return { skip: `registering the persisted query answered ${registered.status}` };
  const requests = ctx.ids.map((id) => get(`/graphql?variables=${encodeURIComponent(JSON.stringify({ id }))}&extensions=${extensions}`, { accept: 'application/json' }));
  return { requests, expect: 200, note: 'no HTTP revalidation: every request runs the query and answers 200' };
}

/** Users 1–50 have pictures in the demo data (when the file store exists): their 64 px variant. */
async function variantUrls(ctx) {
  const urls = [];
  for (let id = 1; id <= 50; id++) {
    const { status, json } = await ctx.call(get(`/users/${id}?fields=profilePicture&profilePicture.size=64`));
    if (status === 200 && typeof json?.profilePicture === 'string') urls.push(json.profilePicture);
  }
  return urls;
}

async function pictureVariants(ctx) {
  const urls = await variantUrls(ctx);
  if (urls.length === 0) return { skip: 'no user has a profilePicture (file uploads not in this build of Diglot, or no pictures in the demo data)' };
  const requests = [];
  for (const url of urls) {
    const path = url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url;
    // The first request makes the variant; the measured ones find it cached.
    const { status } = await ctx.call(get(path));
    if (status !== 200) return { skip: `GET ${path} answered ${status}` };
    requests.push(get(path));
  }
  return { requests };
}

/** The hand-written equivalent: the same variant bytes, already on disk, sent as a static file. */
async function staticVariants(ctx) {
  const diglot = ctx.other('diglot-sqlite');
  if (diglot === undefined) return { skip: 'needs Diglot (SQLite) to produce the variants' };
  const urls = await variantUrls(diglot);
  if (urls.length === 0) return { skip: 'no profile pictures in Diglot to copy' };
  const requests = [];
  for (const url of urls) {
    const path = url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url;
    const { status, bytes } = await diglot.call(get(path));
    if (status !== 200) return { skip: `GET ${path} from Diglot answered ${status}` };
    const name = path.replace(/^\/files\//, '').replaceAll('/', '_').replace(/[?&=]/g, '_');
    writeFileSync(join(ctx.filesDir, name), bytes);
    requests.push(get(`/files/${name}`));
  }
  return { requests };
}
