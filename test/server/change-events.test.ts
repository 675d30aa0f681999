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
async function untilListening(server: TestServer, sub: LiveSubscription, probe: () => Promise<unknown>): Promise<Message> {
  for (let attempt = 0; attempt < 100 && sub.results.waitingCount === 0; attempt++) {
    await probe();
    await eventsOf(server.app).settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let last: Message | undefined;
  while (sub.results.waitingCount > 0) last = (await sub.results.next()) as Message;
  if (last === undefined) throw new Error('the subscription never received a probe');
  return last;
}

interface Message {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly { readonly extensions?: { readonly code?: string } }[];
  readonly extensions?: { readonly event?: { readonly id: string; readonly timestamp: string; readonly cursor: string } };
}

/** The next message's data: what the subscriber selected. */
async function nextData(sub: LiveSubscription): Promise<unknown> {
  return ((await sub.results.next()) as Message).data;
}

/** A subscription refused when subscribing: the error code of its only message (or of how it ended). */
async function refusalCode(sub: LiveSubscription): Promise<string | undefined> {
  const outcome = await Promise.race([sub.ended.then(({ error }) => ({ error })), sub.results.next().then((result) => ({ result: result as Message }))]);
  if ('result' in outcome) return outcome.result.errors?.[0]?.extensions?.code;
  return JSON.stringify(outcome.error);
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
        const message = (await sub.results.next()) as Message;
        expect(message.data).toEqual({ postCreated: { title: 'Keep REST', author: { name: userName } } });
        // Which event it was, and the cursor to resume after it.
        expect(message.extensions?.event?.id).toMatch(/^evt_/);
        expect(message.extensions?.event?.cursor).toMatch(/^\d+$/);
        const made = await gql(server.url, 'mutation($a: ID!) { createPost(input: { title: "Keep GraphQL", body: "b", author: $a }) { id } }', { a: userId });
        expect(made.json.errors).toBeUndefined();
        expect(await nextData(sub)).toEqual({ postCreated: { title: 'Keep GraphQL', author: { name: userName } } });
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
        expect(await nextData(sub)).toEqual({ postUpdated: { id, title: 'After all' } });
      } finally {
        sub.close();
      }
    });

    it('sends postDeleted with the record as it was, for a REST DELETE and a GraphQL mutation, the filter matched on it', async () => {
      const remove = async (title: string) => {
        const id = (await createPost(title)).json.id as string;
        expect((await http(server.url, 'DELETE', `/posts/${id}`)).status).toBe(204);
        return id;
      };
      const sub = client.subscribe('subscription { postDeleted(filter: { title: { startsWith: "Gone" } }) { id title status cover(size: 320) author { name } } }');
      try {
        await untilListening(server, sub, () => remove(`Gone probe ${Math.random()}`));
        await remove('Kept out');
        const viaRest = await remove('Gone by REST');
        expect(await nextData(sub)).toEqual({ postDeleted: { id: viaRest, title: 'Gone by REST', status: 'DRAFT', cover: null, author: { name: userName } } });
        const viaGraphql = (await createPost('Gone by GraphQL')).json.id as string;
        const deleted = await gql(server.url, 'mutation($id: ID!) { deletePost(id: $id) { id } }', { id: viaGraphql });
        expect(deleted.json.errors).toBeUndefined();
        expect(await nextData(sub)).toEqual({ postDeleted: { id: viaGraphql, title: 'Gone by GraphQL', status: 'DRAFT', cover: null, author: { name: userName } } });
      } finally {
        sub.close();
      }
    });

    it('resumes after a cursor: the events since come first, in order, then the live ones', async () => {
      const first = client.subscribe('subscription { postCreated(filter: { title: { startsWith: "Resume" } }) { title } }');
      const probe = await untilListening(server, first, () => createPost(`Resume probe ${Math.random()}`));
      first.close();
      const cursor = probe.extensions?.event?.cursor;
      expect(cursor).toBeDefined();
      await createPost('Resume one');
      await createPost('Other');
      await createPost('Resume two');
      await eventsOf(server.app).settle();
      const resumed = client.subscribe('subscription($after: String) { postCreated(filter: { title: { startsWith: "Resume" } }, after: $after) { title } }', { after: cursor });
      try {
        expect(await nextData(resumed)).toEqual({ postCreated: { title: 'Resume one' } });
        const second = (await resumed.results.next()) as Message;
        expect(second.data).toEqual({ postCreated: { title: 'Resume two' } });
        expect(Number(second.extensions?.event?.cursor)).toBeGreaterThan(Number(cursor));
        await createPost('Resume three');
        expect(await nextData(resumed)).toEqual({ postCreated: { title: 'Resume three' } });
      } finally {
        resumed.close();
      }
    });

    it('answers a selection of the record\'s lists by reading it, and refuses one over the limits when subscribing', async () => {
      const sub = client.subscribe('subscription { userCreated(filter: { name: { startsWith: "Lister" } }) { name postsCount posts(first: 5) { title } } }');
      const makeUser = (name: string) => http(server.url, 'POST', '/users', { body: { name, email: `${String(Math.random()).slice(2)}@example.org` } });
      try {
        await untilListening(server, sub, () => makeUser(`Lister probe ${Math.random()}`));
        await makeUser('Lister');
        expect(await nextData(sub)).toEqual({ userCreated: { name: 'Lister', postsCount: 0, posts: [] } });
      } finally {
        sub.close();
      }
      expect(await refusalCode(client.subscribe('subscription { userCreated { posts(first: 100000) { title } } }'))).toBe('QUERY_PAGE_TOO_LARGE');
    });

    it('resumes two subscribers of one question at once, with writes during their catch-up: each gets every event once, and one leaving silences nobody', async () => {
      const query = 'subscription($after: String) { postCreated(filter: { title: { startsWith: "Gap" } }, after: $after) { title } }';
      const first = client.subscribe(query, {});
      const probe = await untilListening(server, first, () => createPost(`Gap probe ${Math.random()}`));
      first.close();
      const cursor = probe.extensions?.event?.cursor;
      await createPost('Gap 1');
      await createPost('Gap 2');
      await eventsOf(server.app).settle();
      const resumers = [client.subscribe(query, { after: cursor }), client.subscribe(query, { after: cursor })];
      const plain = client.subscribe(query, {});
      const titles = async (sub: LiveSubscription, count: number): Promise<unknown[]> => {
        const got: unknown[] = [];
        for (let i = 0; i < count; i++) got.push(((await nextData(sub)) as { postCreated: { title: string } }).postCreated.title);
        return got;
      };
      try {
        // Written while the two read their backlog (nothing tells when that is: it may land in the backlog or as live; either way once).
        await createPost('Gap 3');
        for (const sub of resumers) expect(await titles(sub, 3)).toEqual(['Gap 1', 'Gap 2', 'Gap 3']);
        await untilListening(server, plain, () => createPost(`Gap probe ${Math.random()}`));
        for (const sub of resumers) while (sub.results.waitingCount > 0) await sub.results.next();
        await createPost('Gap 4');
        for (const sub of [...resumers, plain]) expect(await titles(sub, 1)).toEqual(['Gap 4']);
        (resumers[0] as LiveSubscription).close();
        await createPost('Gap 5');
        for (const sub of [resumers[1] as LiveSubscription, plain]) expect(await titles(sub, 1)).toEqual(['Gap 5']);
      } finally {
        for (const sub of [...resumers, plain]) sub.close();
      }
    });

    it('refuses a cursor that is not one, or that no kept event follows, with QUERY_INVALID_CURSOR', async () => {
      expect(await refusalCode(client.subscribe('subscription { postCreated(after: "yesterday") { id } }'))).toBe('QUERY_INVALID_CURSOR');
      expect(await refusalCode(client.subscribe('subscription { postUpdated(after: "900000000000") { id } }'))).toBe('QUERY_INVALID_CURSOR');
    });

    it('refuses, when subscribing, a deleted record\'s lists (they went with it) with SUBSCRIPTION_UNSUPPORTED', async () => {
      expect(await refusalCode(client.subscribe('subscription { userDeleted { name posts { title } } }'))).toBe('SUBSCRIPTION_UNSUPPORTED');
      expect(await refusalCode(client.subscribe('subscription { userDeleted { name postsCount } }'))).toBe('SUBSCRIPTION_UNSUPPORTED');
    });
  });

  it('subscribers asking the same question share one read of each event', async () => {
    const client = graphqlWsClient(server.url);
    const query = 'subscription { postCreated(filter: { title: { startsWith: "Shared" } }) { title author { name } } }';
    const subs = [client.subscribe(query)];
    try {
      await untilListening(server, subs[0] as LiveSubscription, () => createPost(`Shared probe ${Math.random()}`));
      /** Statements from a create until every subscriber has its message. */
      const statementsFor = async (title: string): Promise<number> => {
        await eventsOf(server.app).settle();
        const before = server.db.statementCount;
        await createPost(title);
        for (const sub of subs) expect(await nextData(sub)).toEqual({ postCreated: { title, author: { name: userName } } });
        return server.db.statementCount - before;
      };
      const alone = await statementsFor('Shared alone');
      for (let i = 0; i < 11; i++) subs.push(client.subscribe(query));
      for (const sub of subs.slice(1)) await untilListening(server, sub, () => createPost(`Shared probe ${Math.random()}`));
      for (const sub of subs) while (sub.results.waitingCount > 0) await sub.results.next();
      const twelve = await statementsFor('Shared by twelve');
      // A read per subscriber would be 11 more statements.
      expect(twelve).toBeLessThan(alone + 11);
    } finally {
      for (const sub of subs) sub.close();
      await client.dispose();
    }
  });

  it('counts change-event subscriptions against the per-client live-read limit (LIVE_READS_LIMIT), and frees the place on close', async () => {
    const limited = await startServer(() => ctx.open(), { seed: false, engine: { live: { maxPerClient: 2 } } });
    const client = graphqlWsClient(limited.url);
    const makeUser = () => http(limited.url, 'POST', '/users', { body: { name: 'N', email: `n${Math.random()}@example.org` } });
    try {
      const one = client.subscribe('subscription { userCreated { name } }');
      const two = client.subscribe('subscription { userUpdated { name } }');
      await untilListening(limited, one, makeUser);
      expect(await refusalCode(client.subscribe('subscription { userDeleted { id } }'))).toBe('LIVE_READS_LIMIT');
      one.close();
      // The socket's messages are read in order: the place is free when the next subscription arrives.
      const again = client.subscribe('subscription { userCreated { name } }');
      try {
        const heard = await untilListening(limited, again, makeUser);
        expect(heard.errors).toBeUndefined();
        expect(heard.data).toEqual({ userCreated: { name: 'N' } });
      } finally {
        again.close();
        two.close();
      }
    } finally {
      await client.dispose();
      await limited.close();
    }
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
        expect(await nextData(mine)).toEqual({ postCreated: { title: 'Secret draft' } });
        expect(await nextData(mine)).toEqual({ postCreated: { title: 'Public post' } });
        expect(await nextData(theirs)).toEqual({ postCreated: { title: 'Public post' } });
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
        const got = (await sub.results.next()) as Message;
        // Masked by a row rule (`id == auth.id`): null, without an error, exactly as `posts { author { email } }` answers this stranger.
        expect(got.data).toEqual({ postCreated: { title: 'Mail?', author: { email: null } } });
        expect(got.errors).toBeUndefined();
        expect(JSON.stringify(sub.results.received)).not.toContain('@');
      } finally {
        sub.close();
        await stranger.dispose();
      }
    });

    it('postDeleted: the read rule is applied to the record as it was; nobody hears of a draft they could not read', async () => {
      const anonymous = connect(server.url);
      const owner = connect(server.url, authorToken);
      const query = 'subscription { postDeleted { title status author { id email } } }';
      const theirs = anonymous.subscribe(query);
      const mine = owner.subscribe(query);
      const remove = async (title: string, status: string) => {
        const id = (await post(title, status)).json.id as string;
        const deleted = await http(server.url, 'DELETE', `/posts/${id}`, { headers: { authorization: `Bearer ${authorToken}` } });
        expect(deleted.status).toBe(204);
      };
      try {
        await untilListening(server, theirs, () => remove('probe', 'PUBLISHED'));
        await untilListening(server, mine, () => remove('probe', 'PUBLISHED'));
        await remove('Deleted draft', 'DRAFT');
        await remove('Deleted post', 'PUBLISHED');
        // The author reads their own email; the anonymous subscriber gets it null (a field rule), and no draft.
        expect(await nextData(mine)).toEqual({ postDeleted: { title: 'Deleted draft', status: 'DRAFT', author: { id: author, email: expect.stringContaining('@') } } });
        expect(await nextData(mine)).toEqual({ postDeleted: { title: 'Deleted post', status: 'PUBLISHED', author: { id: author, email: expect.stringContaining('@') } } });
        expect(await nextData(theirs)).toEqual({ postDeleted: { title: 'Deleted post', status: 'PUBLISHED', author: { id: author, email: null } } });
        expect(JSON.stringify(theirs.results.received)).not.toContain('Deleted draft');
      } finally {
        theirs.close();
        mine.close();
        await anonymous.dispose();
        await owner.dispose();
      }
    });

    it('refuses, when subscribing, a deleted record whose read rule looks through a relation (OrderItem: order.customer), and a filter on a field the subscriber may not read', async () => {
      const member = connect(server.url, strangerToken);
      try {
        expect(await refusalCode(member.subscribe('subscription { orderItemDeleted { id } }'))).toBe('SUBSCRIPTION_UNSUPPORTED');
        expect(await refusalCode(member.subscribe('subscription { userDeleted(filter: { email: { eq: "a@b.c" } }) { id } }'))).toBe('FIELD_FORBIDDEN');
      } finally {
        await member.dispose();
      }
    });
  });
});
