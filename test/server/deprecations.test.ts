/**
 * Deprecation reaches clients, the same facts in both styles and on every
 * transport: REST headers (Deprecation, Sunset, Link), GraphQL
 * `extensions.deprecations`, and uses counted per client after a flush.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { loadSchema } from '../../src/schema/load-schema.js';
import type { Model } from '../../src/schema/model.js';
import type { Database } from '../../src/storage/dialect.js';
import { addDeprecationUses, readDeprecationDates, readDeprecationUses } from '../../src/storage/deprecation-uses.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { createServer } from '../../src/server/create-server.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, openEventSource, type LiveGraphqlClient } from '../support/live-clients.js';
import { eventsOf } from '../../src/server/create-server.js';
import { gql, gqlGet } from '../graphql/graphql-client.js';
import { DEPRECATIONS_SCHEMA } from '../support/deprecations-schema.js';


function deprecationsModel(): Model {
  const result = loadSchema([{ file: 'deprecations.graphql', text: DEPRECATIONS_SCHEMA }]);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.model;
}

/** Seconds since the epoch of an ISO date's midnight (UTC): RFC 9745's `@<seconds>`. */
const at = (date: string): string => `@${Date.parse(`${date}T00:00:00Z`) / 1000}`;
const NICK_SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT';
const NICK_LINK = '</docs/deprecations#Author.nick>; rel="deprecation"; type="text/html"';

describeEachDialect('deprecations', (ctx) => {
  let db: Database;
  let engine: Engine;
  let app: FastifyInstance;
  let url: string;
  let authorId: string;
  /** When this database first served Author.nick as deprecated (it has no `since`). */
  let nickSince: string;

  const rest = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(url, method, path, options);

  beforeAll(async () => {
    const model = deprecationsModel();
    db = await ctx.open();
    await migrate(db, model, { allowDestructive: false, dryRun: false });
    engine = createEngine(model, db);
    app = await createServer({ engine, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${address.port}`;
    const created = await rest('POST', '/authors', { body: { name: 'Ada' } });
    expect(created.status).toBe(201);
    authorId = created.json.id as string;
    await rest('POST', '/books', { body: { title: 'Notes', author: authorId } });
    await rest('POST', '/pamphlets', { body: { title: 'Old' } });
    const recorded = (await readDeprecationDates(db)).get('Author.nick');
    expect(recorded).toBeTypeOf('number');
    nickSince = `@${Math.floor((recorded as number) / 1000)}`;
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  describe('REST headers', () => {
    it('a GET naming a deprecated field carries Deprecation, Sunset and a Link to its docs', async () => {
      const response = await rest('GET', `/authors/${authorId}?fields=name,nick`);
      expect(response.status).toBe(200);
      expect(response.headers.get('deprecation')).toBe(nickSince);
      expect(response.headers.get('sunset')).toBe(NICK_SUNSET);
      expect(response.headers.get('link')).toContain(NICK_LINK);
      expect(response.headers.get('link')).toContain('</docs/deprecations#Author.nick>; rel="sunset"');
      const docs = await rest('GET', '/docs/deprecations');
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('id="Author.nick"');
    });

    it('a 304 keeps them', async () => {
      const first = await rest('GET', `/authors/${authorId}?fields=nick`);
      const again = await rest('GET', `/authors/${authorId}?fields=nick`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
      expect(again.headers.get('deprecation')).toBe(nickSince);
      expect(again.headers.get('sunset')).toBe(NICK_SUNSET);
      expect(again.headers.get('link')).toContain(NICK_LINK);
    });

    it('a list, with its page links kept beside them', async () => {
      const response = await rest('GET', '/authors?fields=id,nick&limit=1');
      expect(response.status).toBe(200);
      expect(response.headers.get('deprecation')).toBe(nickSince);
      expect(response.headers.get('link')).toContain(NICK_LINK);
    });

    it('an include of a deprecated relation', async () => {
      const response = await rest('GET', `/authors/${authorId}?fields=name&include=books`);
      expect(response.status).toBe(200);
      expect(response.headers.get('link')).toContain('</docs/deprecations#Author.books>; rel="deprecation"');
      expect(response.headers.get('sunset')).toBeNull();
    });

    it('a filter on a deprecated field, and on a deprecated enum value (whose since is the Deprecation date)', async () => {
      const onField = await rest('GET', '/authors?fields=id&filter[nick][isNull]=true');
      expect(onField.status).toBe(200);
      expect(onField.headers.get('link')).toContain(NICK_LINK);
      const onValue = await rest('GET', '/authors?fields=id&filter[role]=GUEST');
      expect(onValue.status).toBe(200);
      expect(onValue.headers.get('deprecation')).toBe(at('2026-01-15'));
      expect(onValue.headers.get('link')).toContain('</docs/deprecations#Role.GUEST>; rel="deprecation"');
    });

    it('a deprecated argument: an image size', async () => {
      const response = await rest('GET', `/authors/${authorId}?fields=avatar&avatar.size=32`);
      expect(response.status).toBe(200);
      expect(response.headers.get('link')).toContain('</docs/deprecations#Author.avatar(size%3A)>; rel="deprecation"');
    });

    it('a deprecated type, on every route of it: the earliest sunset wins', async () => {
      const list = await rest('GET', '/pamphlets');
      expect(list.status).toBe(200);
      expect(list.headers.get('deprecation')).toBe(at('2026-03-01'));
      expect(list.headers.get('sunset')).toBe('Sun, 31 Jan 2027 00:00:00 GMT');
      const missing = await rest('GET', '/pamphlets/nope');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('deprecation')).toBe(at('2026-03-01'));
    });

    it('a write naming a deprecated input field or enum value', async () => {
      const created = await rest('POST', '/authors', { body: { name: 'Bo', nick: 'bo' } });
      expect(created.status).toBe(201);
      expect(created.headers.get('deprecation')).toBe(nickSince);
      expect(created.headers.get('link')).toContain(NICK_LINK);
      const patched = await rest('PATCH', `/authors/${created.json.id as string}`, { body: { role: 'GUEST' } });
      expect(patched.status).toBe(200);
      expect(patched.headers.get('link')).toContain('#Role.GUEST>');
      expect(patched.headers.get('link')).not.toContain('#Author.nick>');
    });

    it('a request using nothing deprecated carries none, the default representation included', async () => {
      for (const path of [`/authors/${authorId}`, `/authors/${authorId}?fields=name,role`, '/books', '/authors?filter[role]=WRITER']) {
        const response = await rest('GET', path);
        expect(response.status, path).toBe(200);
        expect(response.headers.get('deprecation'), path).toBeNull();
        expect(response.headers.get('sunset'), path).toBeNull();
        expect(response.headers.get('link') ?? '', path).not.toContain('rel="deprecation"');
      }
      const write = await rest('POST', '/authors', { body: { name: 'Cy', role: 'EDITOR' } });
      expect(write.status).toBe(201);
      expect(write.headers.get('deprecation')).toBeNull();
    });
  });

  describe('REST live reads and the change stream (Server-Sent Events)', () => {
    /** An event stream with the headers of its response kept. */
    const openStream = async (path: string, names: readonly string[] = []) => {
      let headers: Headers | undefined;
      const source = openEventSource(`${url}${path}`, {}, names, async (response) => {
        headers = (await response).headers;
      });
      await source.opened;
      return { ...source, headers: headers as Headers };
    };

    it('a live read naming a deprecated field carries the headers on its stream, and its updates the data', async () => {
      const live = await openStream(`/authors/${authorId}?fields=name,nick`);
      try {
        expect(live.headers.get('content-type')).toContain('text/event-stream');
        expect(live.headers.get('deprecation')).toBe(nickSince);
        expect(live.headers.get('sunset')).toBe(NICK_SUNSET);
        expect(live.headers.get('link')).toContain(NICK_LINK);
        const first = await live.events.next();
        expect(first.type).toBe('update');
        expect(first.data).toEqual({ name: 'Ada', nick: null });
      } finally {
        live.close();
      }
      const plain = await openStream(`/authors/${authorId}?fields=name`);
      try {
        expect(plain.headers.get('deprecation')).toBeNull();
        expect((await plain.events.next()).data).toEqual({ name: 'Ada' });
      } finally {
        plain.close();
      }
    });

    it("GET /events for a deprecated type's events carries its headers", async () => {
      const stream = await openStream('/events?types=pamphlet.created', ['pamphlet.created']);
      try {
        expect(stream.headers.get('deprecation')).toBe(at('2026-03-01'));
        expect(stream.headers.get('sunset')).toBe('Sun, 31 Jan 2027 00:00:00 GMT');
        expect(stream.headers.get('link')).toContain('</docs/deprecations#Pamphlet>; rel="deprecation"');
        await rest('POST', '/pamphlets', { body: { title: 'Streamed' } });
        // Earlier writes may still be published first.
        let event = await stream.events.next();
        while (event.data.data.record.title !== 'Streamed') event = await stream.events.next();
        expect(event.data).toMatchObject({ type: 'pamphlet.created', data: { record: { title: 'Streamed' } } });
      } finally {
        stream.close();
      }
      const current = await openStream('/events?types=book.created', ['book.created']);
      current.close();
      expect(current.headers.get('deprecation')).toBeNull();
    });
  });

  it('the OpenAPI document marks deprecated enum values, parameters and sunsets', async () => {
    const document = (await rest('GET', '/openapi.json')).json;
    expect(document.components.schemas.Role['x-deprecated-enum-values']).toEqual(['GUEST']);
    expect(document.components.schemas.Role.description).toContain('GUEST is deprecated: Use WRITER.');
    expect(document.components.schemas.Author.properties.nick).toMatchObject({ deprecated: true, 'x-sunset': '2027-06-30' });
    const size = document.components.parameters['Author.avatar.size'];
    expect(size).toMatchObject({ deprecated: true });
  });

  describe('GraphQL extensions', () => {
    const NICK = { kind: 'field', coordinate: 'Author.nick', reason: 'Use name.', sunset: '2027-06-30' };

    it('POST and GET carry extensions.deprecations', async () => {
      const query = `{ author(id: "${authorId}") { name nick } }`;
      const posted = await gql(url, query);
      expect(posted.json.data.author.name).toBe('Ada');
      expect(posted.json.extensions).toEqual({ deprecations: [NICK] });
      const got = await gqlGet(url, { query });
      expect(got.status).toBe(200);
      expect(got.json.extensions).toEqual({ deprecations: [NICK] });
    });

    it('a deprecated enum value in a filter, an argument, a type and a relation', async () => {
      const response = await gql(url, `{ authors(filter: { role: { eq: GUEST } }) { id avatar(size: 32) books { id } } pamphlets { title } }`);
      expect(response.json.errors).toBeUndefined();
      expect(response.json.extensions.deprecations.map((entry: { coordinate: string }) => entry.coordinate)).toEqual([
        'Author.avatar(size:)',
        'Author.books',
        'Pamphlet',
        'Role.GUEST',
      ]);
    });

    it('a mutation naming a deprecated input field and enum value', async () => {
      const response = await gql(url, `mutation { createAuthor(input: { name: "Di", nick: "di", role: GUEST }) { id } }`);
      expect(response.json.errors).toBeUndefined();
      expect(response.json.extensions.deprecations.map((entry: { coordinate: string }) => entry.coordinate)).toEqual(['Author.nick', 'Role.GUEST']);
    });

    it('over graphql-sse, each payload of a live query says it', async () => {
      const client = graphqlSseClient(url);
      try {
        const subscription = client.subscribe('subscription { authors(first: 5) { nick } }');
        const first = await subscription.results.next();
        expect(first.extensions).toEqual({ deprecations: [NICK] });
        const plain = client.subscribe('subscription { authors(first: 5) { name } }');
        expect((await plain.results.next()).extensions).toBeUndefined();
        subscription.close();
        plain.close();
      } finally {
        await client.dispose();
      }
    });

    it('a change-event subscription selecting a deprecated field says it in each event, over graphql-ws and graphql-sse', async () => {
      for (const client of [graphqlWsClient(url), graphqlSseClient(url)] as LiveGraphqlClient[]) {
        try {
          const subscription = client.subscribe('subscription { authorCreated { name nick } }');
          // Registered when the server reads it, which no message acknowledges: write until one arrives.
          for (let attempt = 0; attempt < 100 && subscription.results.waitingCount === 0; attempt++) {
            await rest('POST', '/authors', { body: { name: `Evented ${attempt}` } });
            await eventsOf(app).settle();
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          // Earlier writes may still be published first: every message says it.
          const message = await subscription.results.next();
          expect(message.data.authorCreated).toHaveProperty('nick');
          expect(message.extensions.deprecations).toEqual([NICK]);
          expect(message.extensions.event.cursor).toMatch(/^\d+$/);
          subscription.close();
        } finally {
          await client.dispose();
        }
      }
    });

    it('over graphql-ws, each payload of a subscription says it', async () => {
      const client = graphqlWsClient(url);
      try {
        const subscription = client.subscribe('subscription { authors(first: 5) { nick } }');
        const first = await subscription.results.next();
        expect(first.extensions).toEqual({ deprecations: [NICK] });
        subscription.close();
      } finally {
        await client.dispose();
      }
    });

    it('an operation using nothing deprecated has no extensions', async () => {
      const response = await gql(url, `{ authors(filter: { role: { eq: WRITER } }) { name avatar books: __typename } }`);
      expect(response.json.errors).toBeUndefined();
      expect(response.json).not.toHaveProperty('extensions');
    });

    it('introspection marks enum values and arguments, and a deprecated type in its description', async () => {
      const response = await gql(
        url,
        `{ role: __type(name: "Role") { enumValues(includeDeprecated: true) { name isDeprecated deprecationReason } }
           author: __type(name: "Author") { fields(includeDeprecated: true) { name args(includeDeprecated: true) { name isDeprecated } } }
           pamphlet: __type(name: "Pamphlet") { description } }`,
      );
      expect(response.json.data.role.enumValues).toContainEqual({ name: 'GUEST', isDeprecated: true, deprecationReason: 'Use WRITER.' });
      const avatar = response.json.data.author.fields.find((field: { name: string }) => field.name === 'avatar');
      expect(avatar.args).toEqual([{ name: 'size', isDeprecated: true }]);
      expect(response.json.data.pamphlet.description).toBe('Deprecated: Use Book. (sunset 2027-01-31)');
    });
  });

  describe('uses counted per client', () => {
    it('counts each thing once per request, per client name, flushed in one batch', async () => {
      await engine.deprecationUsage.flush();
      const before = await readDeprecationUses(db);
      const usesOf = (rows: typeof before, coordinate: string, client: string): number =>
        rows.filter((row) => row.coordinate === coordinate && row.client === client).reduce((sum, row) => sum + row.uses, 0);
      for (let i = 0; i < 3; i += 1) await rest('GET', `/authors/${authorId}?fields=nick`, { headers: { 'x-client-name': 'ios-app' } });
      await gql(url, `{ a: author(id: "${authorId}") { nick } b: authors { nick } }`, undefined, { 'x-client-name': 'web' });
      await rest('GET', `/authors/${authorId}?fields=nick`, { headers: { 'x-client-name': 'x'.repeat(65) } });
      await rest('GET', `/authors/${authorId}?fields=name`, { headers: { 'x-client-name': 'ios-app' } });
      await engine.deprecationUsage.flush();
      const after = await readDeprecationUses(db);
      expect(usesOf(after, 'Author.nick', 'ios-app') - usesOf(before, 'Author.nick', 'ios-app')).toBe(3);
      // Two root fields of one operation are one use.
      expect(usesOf(after, 'Author.nick', 'web') - usesOf(before, 'Author.nick', 'web')).toBe(1);
      expect(usesOf(after, 'Author.nick', 'unknown') - usesOf(before, 'Author.nick', 'unknown')).toBe(1);
      const ios = after.find((row) => row.coordinate === 'Author.nick' && row.client === 'ios-app');
      expect(ios?.caller).toBe('ip');
      expect(ios?.lastSeen).toBeGreaterThanOrEqual(ios?.firstSeen ?? Infinity);
    });

    it('instances flushing the same row add their counts', async () => {
      const row = { coordinate: 'Author.nick', client: 'batch-test', caller: 'key', uses: 5, firstSeen: 2000, lastSeen: 3000 };
      await addDeprecationUses(db, [row]);
      await addDeprecationUses(db, [{ ...row, uses: 7, firstSeen: 1000, lastSeen: 2500 }]);
      const [found] = (await readDeprecationUses(db)).filter((count) => count.client === 'batch-test');
      expect(found).toEqual({ ...row, uses: 12, firstSeen: 1000, lastSeen: 3000 });
    });
  });
});
