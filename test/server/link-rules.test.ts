import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { loadSchema } from '../../src/schema/load-schema.js';
import { createServer } from '../../src/server/create-server.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'link-rules-secret-0123456789abcdef';

/** Notes are private unless public; an account keeps a list of notes it saved (many-to-many). */
const SCHEMA = `
enum Role @roles(admin: "ADMIN") {
  MEMBER
  ADMIN
}

type Account @allow(read: "true", create: "true", update: "id == auth.id") {
  id: ID!
  name: String!
  notes: [Note!]! @relation(inverse: "owner")
  saved: [Note!]! @relation(inverse: "savedBy")
}

type Note @allow(read: "isPublic || owner == auth.id", create: "owner == auth.id") {
  id: ID!
  text: String!
  isPublic: Boolean! @default(value: false)
  owner: Account! @default(fromAuth: "id") @relation(inverse: "notes")
  savedBy: [Account!]! @relation(inverse: "saved")
}
`;

/**
 * A link to a record the asker may not see is a 404, exactly as a link to
 * one that does not exist (build-write.ts, WriteRules.target): saving
 * someone's private note must not tell that the note exists.
 */
describeEachDialect('Links to a record the asker may not see', (ctx) => {
  let url: string;
  let close: () => Promise<void>;
  let ann: string;
  let bob: string;
  let annToken: string;
  let bobToken: string;
  let privateNote: string;
  let publicNote: string;

  const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  const codeOf = (response: HttpResponse): string | undefined => response.json?.code ?? response.json?.errors?.[0]?.extensions?.code;
  const sign = (sub: string): Promise<string> =>
    new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'link-rules.graphql', text: SCHEMA }]);
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
    ann = (await http(url, 'POST', '/accounts', { body: { name: 'Ann' } })).json.id as string;
    bob = (await http(url, 'POST', '/accounts', { body: { name: 'Bob' } })).json.id as string;
    annToken = await sign(ann);
    bobToken = await sign(bob);
    privateNote = (await http(url, 'POST', '/notes', { headers: as(annToken), body: { text: 'mine alone' } })).json.id as string;
    publicNote = (await http(url, 'POST', '/notes', { headers: as(annToken), body: { text: 'for all', isPublic: true } })).json.id as string;
    expect([privateNote, publicNote]).toEqual([expect.any(String), expect.any(String)]);
  });
  afterAll(async () => {
    await close();
  });

  const saved = async (account: string, token: string): Promise<string[]> =>
    ((await http(url, 'GET', `/accounts/${account}/saved?fields=id`, { headers: as(token) })).json.data as { id: string }[]).map((note) => note.id);

  it('answers a link to a hidden note as to a missing one, in both styles, and links nothing', async () => {
    const hidden = await http(url, 'PUT', `/accounts/${bob}/saved/${privateNote}`, { headers: as(bobToken) });
    const missing = await http(url, 'PUT', `/accounts/${bob}/saved/no-such-note`, { headers: as(bobToken) });
    expect(hidden.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(codeOf(hidden)).toBe('NOT_FOUND');
    expect(codeOf(missing)).toBe('NOT_FOUND');
    const mutation = (target: string): string => `mutation { addAccountSaved(id: "${bob}", targetId: "${target}") { id } }`;
    expect(codeOf(await gql(url, mutation(privateNote), undefined, as(bobToken)))).toBe('NOT_FOUND');
    expect(codeOf(await gql(url, mutation('no-such-note'), undefined, as(bobToken)))).toBe('NOT_FOUND');
    // Only the detail's id differs: the answer's shape and wording do not tell the two apart.
    expect(hidden.json.detail.replace(privateNote, 'X')).toBe(missing.json.detail.replace('no-such-note', 'X'));
    expect(await saved(bob, bobToken)).toEqual([]);
  });

  it('links a note the asker may see, and their own private one', async () => {
    expect((await http(url, 'PUT', `/accounts/${bob}/saved/${publicNote}`, { headers: as(bobToken) })).status).toBe(204);
    const own = await gql(url, `mutation { addAccountSaved(id: "${ann}", targetId: "${privateNote}") { saved { id } } }`, undefined, as(annToken));
    expect(own.json.data.addAccountSaved.saved).toEqual([{ id: privateNote }]);
    expect(await saved(bob, bobToken)).toEqual([publicNote]);
  });
});
