import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { loadSchema } from '../../src/schema/load-schema.js';
import { createServer } from '../../src/server/create-server.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'reference-rules-secret-0123456789abcdef';

/** Notes are private unless public; a pin points at one note (a to-one reference) and is its owner's alone. */
const SCHEMA = `
enum Role @roles(admin: "ADMIN") {
  MEMBER
  ADMIN
}

type Account @allow(read: "true", create: "true") {
  id: ID!
  name: String!
}

type Note @allow(read: "isPublic || owner == auth.id", create: "owner == auth.id") {
  id: ID!
  text: String!
  isPublic: Boolean! @default(value: false)
  owner: Account! @default(fromAuth: "id")
}

type Pin @allow(read: "owner == auth.id", create: "owner == auth.id", update: "owner == auth.id") {
  id: ID!
  owner: Account! @default(fromAuth: "id")
  note: Note!
}
`;

/**
 * A to-one value naming a record the asker may not see fails exactly as one
 * naming no record (issue 36, finding 8e), as a link to it is a 404 already
 * (link-rules.test.ts): pinning someone's private note must not tell that
 * the note exists. REST and GraphQL, create and update, both databases.
 */
describeEachDialect('References to a record the asker may not see', (ctx) => {
  let url: string;
  let close: () => Promise<void>;
  let annToken: string;
  let bobToken: string;
  let privateNote: string;
  let publicNote: string;
  let bobPin: string;

  const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  const sign = (sub: string): Promise<string> =>
    new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  /** What a client sees of a refusal: status, code, detail and pointers (the instance URL aside). */
  const seen = (response: HttpResponse): unknown => ({ status: response.status, code: response.json?.code, detail: response.json?.detail, errors: response.json?.errors });
  const graphqlSeen = (response: HttpResponse): unknown => {
    const error = response.json?.errors?.[0];
    return { code: error?.extensions?.code, message: error?.message };
  };

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'reference-rules.graphql', text: SCHEMA }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    const db = await ctx.open();
    await migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
    const app = await createServer({ engine: createEngine(loaded.model, db), logger: false, auth: { jwtSecret: SECRET } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    url = `http://127.0.0.1:${address.port}`;
    close = async () => {
      await app.close();
    };
    const ann = (await http(url, 'POST', '/accounts', { body: { name: 'Ann' } })).json.id as string;
    const bob = (await http(url, 'POST', '/accounts', { body: { name: 'Bob' } })).json.id as string;
    annToken = await sign(ann);
    bobToken = await sign(bob);
    privateNote = (await http(url, 'POST', '/notes', { headers: as(annToken), body: { text: 'mine alone' } })).json.id as string;
    publicNote = (await http(url, 'POST', '/notes', { headers: as(annToken), body: { text: 'for all', isPublic: true } })).json.id as string;
    const pin = await http(url, 'POST', '/pins', { headers: as(bobToken), body: { note: publicNote } });
    expect(pin.status, pin.text).toBe(201);
    bobPin = pin.json.id as string;
  });
  afterAll(async () => {
    await close();
  });

  it('REST create: a pin of a note Bob may not see is refused exactly as a pin of no note', async () => {
    const hidden = await http(url, 'POST', '/pins', { headers: as(bobToken), body: { note: privateNote } });
    const missing = await http(url, 'POST', '/pins', { headers: as(bobToken), body: { note: 'no-such-note' } });
    expect(hidden.status, hidden.text).toBe(409);
    expect(hidden.json.code).toBe('RELATION_TARGET_NOT_FOUND');
    expect(seen(hidden)).toEqual(seen(missing));
    // The note's owner pins it as anyone pins what they may see.
    expect((await http(url, 'POST', '/pins', { headers: as(annToken), body: { note: privateNote } })).status).toBe(201);
  });

  it('REST update: moving a pin to a hidden note is refused as moving it to no note, and nothing changes', async () => {
    const hidden = await http(url, 'PATCH', `/pins/${bobPin}`, { headers: as(bobToken), body: { note: privateNote } });
    const missing = await http(url, 'PATCH', `/pins/${bobPin}`, { headers: as(bobToken), body: { note: 'no-such-note' } });
    expect(hidden.json.code, hidden.text).toBe('RELATION_TARGET_NOT_FOUND');
    expect(seen(hidden)).toEqual(seen(missing));
    expect((await http(url, 'GET', `/pins/${bobPin}`, { headers: as(bobToken) })).json.note).toBe(publicNote);
  });

  it('GraphQL: createPin and updatePin answer the same for a hidden note as for a missing one', async () => {
    const create = (note: string): Promise<HttpResponse> => gql(url, 'mutation ($note: ID!) { createPin(input: { note: $note }) { id } }', { note }, as(bobToken));
    const hidden = await create(privateNote);
    expect(hidden.json.errors?.[0]?.extensions?.code, hidden.text).toBe('RELATION_TARGET_NOT_FOUND');
    expect(graphqlSeen(hidden)).toEqual(graphqlSeen(await create('no-such-note')));
    const update = (note: string): Promise<HttpResponse> =>
      gql(url, 'mutation ($id: ID!, $note: ID!) { updatePin(id: $id, input: { note: $note }) { id } }', { id: bobPin, note }, as(bobToken));
    const hiddenUpdate = await update(privateNote);
    expect(hiddenUpdate.json.errors?.[0]?.extensions?.code, hiddenUpdate.text).toBe('RELATION_TARGET_NOT_FOUND');
    expect(graphqlSeen(hiddenUpdate)).toEqual(graphqlSeen(await update('no-such-note')));
  });
});
