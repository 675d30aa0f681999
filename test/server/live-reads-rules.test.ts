/**
 * Live reads under the example's read rules, on both databases, through
 * every transport: a subscriber who may not read a record receives nothing
 * of it (REST: a 404, no stream; GraphQL: `null`, as a query answers), and
 * receives it once a change lets them read it; a record that stops being
 * readable is sent as gone, never as its new data. The principal of a
 * WebSocket comes from connection_init through the HTTP authenticator; a
 * bad credential is refused.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, openEventSource, type LiveGraphqlClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'live-rules-test-secret-0123456789abcdef';

describeEachDialect('Live reads under read rules', (ctx) => {
  let server: TestServer;
  let author: string;
  let authorToken: string;
  let strangerToken: string;

  const sign = (sub: string): Promise<string> =>
    new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  const draft = async (title: string): Promise<string> => {
    const created = await http(server.url, 'POST', '/posts', { body: { title, body: 'secret text' }, headers: as(authorToken) });
    expect(created.status, created.text).toBe(201);
    return created.json.id as string;
  };
  const setStatus = async (id: string, status: string): Promise<void> => {
    const changed = await http(server.url, 'PATCH', `/posts/${id}`, { body: { status }, headers: { ...as(authorToken), 'content-type': 'application/merge-patch+json' } });
    expect(changed.status, changed.text).toBe(200);
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 5, Post: 10, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { auth: { jwtSecret: SECRET } },
    });
    const users = (await http(server.url, 'GET', '/users?limit=2&fields=id')).json.data as { id: string }[];
    author = (users[0] as { id: string }).id;
    authorToken = await sign(author);
    strangerToken = await sign((users[1] as { id: string }).id);
  });
  afterAll(async () => {
    await server.close();
  });

  it('REST: a stranger asking for a draft gets a 404, not a stream; a published post that goes back to draft is sent as gone', async () => {
    const id = await draft('REST draft');
    const refused = await fetch(`${server.url}/posts/${id}?fields=title`, { headers: { accept: 'text/event-stream', ...as(strangerToken) } });
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain('REST draft');

    await setStatus(id, 'PUBLISHED');
    const live = openEventSource(`${server.url}/posts/${id}?fields=title`, as(strangerToken));
    try {
      expect((await live.events.next()).data).toEqual({ title: 'REST draft' });
      await setStatus(id, 'DRAFT');
      const gone = await live.events.next();
      expect(gone).toMatchObject({ type: 'problem', data: { status: 404, code: 'NOT_FOUND' } });
      expect(JSON.stringify(gone.data)).not.toContain('REST draft');
      // The author edits the draft: the stranger hears nothing of it; the next thing they hear is its publication.
      await http(server.url, 'PATCH', `/posts/${id}`, { body: { title: 'Secret edit' }, headers: { ...as(authorToken), 'content-type': 'application/merge-patch+json' } });
      await setStatus(id, 'PUBLISHED');
      expect((await live.events.next()).data).toEqual({ title: 'Secret edit' });
      expect(live.events.received.filter((event) => event.type === 'update').map((event) => event.data.title)).toEqual(['REST draft', 'Secret edit']);
    } finally {
      live.close();
    }
  });

  describe.each([
    ['graphql-ws', (url: string, token?: string) => graphqlWsClient(url, token === undefined ? undefined : `Bearer ${token}`)],
    ['graphql-sse', (url: string, token?: string) => graphqlSseClient(url, token === undefined ? undefined : `Bearer ${token}`)],
  ])('GraphQL over %s', (name, connect) => {
    let stranger: LiveGraphqlClient;
    let owner: LiveGraphqlClient;
    beforeAll(() => {
      stranger = connect(server.url, strangerToken);
      owner = connect(server.url, authorToken);
    });
    afterAll(async () => {
      await stranger.dispose();
      await owner.dispose();
    });

    it('a stranger gets null for a draft and nothing of its edits; the author sees them; publication reaches the stranger', async () => {
      const id = await draft(`${name} draft`);
      const query = `subscription ($id: ID!) { post(id: $id) { title } }`;
      const theirs = stranger.subscribe(query, { id });
      const mine = owner.subscribe(query, { id });
      try {
        expect(await theirs.results.next()).toEqual({ data: { post: null } });
        expect(await mine.results.next()).toEqual({ data: { post: { title: `${name} draft` } } });
        await http(server.url, 'PATCH', `/posts/${id}`, { body: { title: `${name} edit` }, headers: { ...as(authorToken), 'content-type': 'application/merge-patch+json' } });
        expect(await mine.results.next()).toEqual({ data: { post: { title: `${name} edit` } } });
        await setStatus(id, 'PUBLISHED');
        expect(await theirs.results.next()).toEqual({ data: { post: { title: `${name} edit` } } });
        expect(theirs.results.received).toHaveLength(2);
      } finally {
        theirs.close();
        mine.close();
      }
    });
  });

  it('ends every stream when its token expires: REST with a 401 problem, graphql-sse with UNAUTHENTICATED, graphql-ws by closing the socket (4403)', async () => {
    // A token good for about two more seconds (exp is in whole seconds).
    const short = await new SignJWT({ sub: author, role: 'MEMBER' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
      .sign(new TextEncoder().encode(SECRET));
    const id = await draft('Expiring view');
    const rest = openEventSource(`${server.url}/posts/${id}?fields=title`, as(short));
    const sse = graphqlSseClient(server.url, `Bearer ${short}`);
    const ws = graphqlWsClient(server.url, `Bearer ${short}`);
    const query = `subscription { post(id: "${id}") { title } }`;
    try {
      expect((await rest.events.next()).data).toEqual({ title: 'Expiring view' });
      const overSse = sse.subscribe(query);
      const overWs = ws.subscribe(query);
      expect((await overSse.results.next()).data).toEqual({ post: { title: 'Expiring view' } });
      expect((await overWs.results.next()).data).toEqual({ post: { title: 'Expiring view' } });
      // Nothing changes: what comes next is the expiry.
      const problem = await rest.events.next();
      expect(problem.type).toBe('problem');
      expect(problem.data.code).toBe('UNAUTHENTICATED');
      expect(((await overSse.results.next()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      // The socket closed at the expiry (the operation may have ended first, with UNAUTHENTICATED); a new one with that token is refused.
      await overWs.ended;
      expect(JSON.stringify(overWs.results.received)).not.toMatch(/Expiring view.*Expiring view/);
      const again = ws.subscribe(query);
      expect(String(((await again.ended).error as { code?: number } | undefined)?.code)).toBe('4403');
    } finally {
      rest.close();
      await sse.dispose();
      await ws.dispose();
    }
  });

  it('graphql-ws: a credential in connection_init is checked by the same authenticator; a bad one closes the socket (4403)', async () => {
    const bad = graphqlWsClient(server.url, 'Bearer not-a-token');
    const sub = bad.subscribe('subscription { users(first: 1) { id } }');
    const outcome = await sub.ended;
    expect(String((outcome.error as { code?: number }).code)).toBe('4403');
    await bad.dispose();
  });
});
