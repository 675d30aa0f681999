/**
 * Change-event subscriptions (`postCreated`, `postUpdated`, …) over real
 * graphql-ws and graphql-sse clients, on both databases: REST writes and
 * GraphQL mutations reach a subscriber with the fields it selected, the
 * filter applies to the record after the change, and the read rules decide
 * who receives what.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../../src/server/create-server.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, type LiveGraphqlClient, type LiveSubscription } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'change-events-test-secret-of-enough-length';
const transports = [
  ['graphql-ws', (url: string, token?: string) => graphqlWsClient(url, token === undefined ? undefined : `Bearer ${token}`)],
  ['graphql-sse', (url: string, token?: string) => graphqlSseClient(url, token === undefined ? undefined : `Bearer ${token}`)],
] as const;

/**
 * A subscription is registered when the server reads it, which no message
 * acknowledges: write probes until one arrives, then every later write is
 * received in order.
 */
async function untilListening(server: TestServer, sub: LiveSubscription, probe: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; attempt < 100 && sub.results.waitingCount === 0; attempt++) {
    await probe();
    await eventsOf(server.app).settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  while (sub.results.waitingCount > 0) await sub.results.next();
}

describeEachDialect('Change events', (ctx) => {
  let server: TestServer;
  let userId: string;
  let userName: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 } });
    const user = (await http(server.url, 'GET', '/users?limit=1&fields=id,name')).json.data[0];
    userId = user.id;
    userName = user.name;
  });
  afterAll(async () => {
    await server.close();
  });

  const createPost = (title: string) => http(server.url, 'POST', '/posts', { body: { title, body: 'text', author: userId } });

  describe.each(transports)('over %s', (_name, connect) => {
    let client: LiveGraphqlClient;
    beforeAll(() => {
      client = connect(server.url);
    });
    afterAll(async () => {
      await client.dispose();
    });

    it('sends a REST create and a GraphQL mutation to postCreated with the selected fields, the filter applied', async () => {
      const sub = client.subscribe('subscription { postCreated(filter: { title: { startsWith: "Keep" } }) { title author { name } } }');
      try {
        await untilListening(server, sub, () => createPost('Keep probe'));
        await createPost('Drop this');
        await createPost('Keep REST');
        expect(await sub.results.next()).toEqual({ data: { postCreated: { title: 'Keep REST', author: { name: userName } } } });
        const made = await gql(server.url, 'mutation($a: ID!) { createPost(input: { title: "Keep GraphQL", body: "b", author: $a }) { id } }', { a: userId });
        expect(made.json.errors).toBeUndefined();
        expect(await sub.results.next()).toEqual({ data: { postCreated: { title: 'Keep GraphQL', author: { name: userName } } } });
      } finally {
        sub.close();
      }
    });

    it('sends postUpdated with the record after the change, the filter matched on it', async () => {
      const id = (await createPost('Before')).json.id as string;
      const patch = (title: string) => http(server.url, 'PATCH', `/posts/${id}`, { body: { title }, headers: { 'content-type': 'application/merge-patch+json' } });
      const sub = client.subscribe('subscription { postUpdated(filter: { title: { startsWith: "After" } }) { id title } }');
      try {
        await untilListening(server, sub, () => patch(`After probe ${Math.random()}`));
        await patch('Not matching');
        await patch('After all');
        expect(await sub.results.next()).toEqual({ data: { postUpdated: { id, title: 'After all' } } });
      } finally {
        sub.close();
      }
    });
  });
});

describeEachDialect('Change events under read rules', (ctx) => {
  let server: TestServer;
  let author: string;
  let authorToken: string;
  let strangerToken: string;

  const sign = (sub: string): Promise<string> =>
    new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  const post = (title: string, status: string) =>
    http(server.url, 'POST', '/posts', { body: { title, body: 'secret text', status }, headers: { authorization: `Bearer ${authorToken}` } });

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
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

  describe.each(transports)('over %s', (_name, connect) => {
    it('an anonymous subscriber gets published posts, not drafts; the author gets their drafts', async () => {
      const anonymous = connect(server.url);
      const owner = connect(server.url, authorToken);
      const theirs = anonymous.subscribe('subscription { postCreated { title } }');
      const mine = owner.subscribe('subscription { postCreated { title } }');
      try {
        await untilListening(server, theirs, () => post('probe', 'PUBLISHED'));
        await untilListening(server, mine, () => post('probe', 'PUBLISHED'));
        await post('Secret draft', 'DRAFT');
        await post('Public post', 'PUBLISHED');
        expect(await mine.results.next()).toEqual({ data: { postCreated: { title: 'Secret draft' } } });
        expect(await mine.results.next()).toEqual({ data: { postCreated: { title: 'Public post' } } });
        expect(await theirs.results.next()).toEqual({ data: { postCreated: { title: 'Public post' } } });
        expect(JSON.stringify(theirs.results.received)).not.toContain('Secret draft');
      } finally {
        theirs.close();
        mine.close();
        await anonymous.dispose();
        await owner.dispose();
      }
    });

    it('a private field (User.email) is null for a stranger, as in a posts query', async () => {
      const stranger = connect(server.url, strangerToken);
      const sub = stranger.subscribe('subscription { postCreated { title author { email } } }');
      try {
        await untilListening(server, sub, () => post('probe', 'PUBLISHED'));
        await post('Mail?', 'PUBLISHED');
        const got = await sub.results.next();
        // Masked by a row rule (`id == auth.id`): null, without an error, exactly as `posts { author { email } }` answers this stranger.
        expect(got).toEqual({ data: { postCreated: { title: 'Mail?', author: { email: null } } } });
        expect(JSON.stringify(sub.results.received)).not.toContain('@');
      } finally {
        sub.close();
        await stranger.dispose();
      }
    });
  });
});
