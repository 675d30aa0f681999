/**
 * Ids order shorter first, then as text: the demo's numeric ids come 1, 2,
 * …, 9, 10, 11 (not 1, 10, 100, 11), generated ids (26 characters, all of
 * one length) come after them in the order they were made, and cursors page
 * across the length boundary both ways, over REST and GraphQL, in root lists
 * and sub-collections, on both databases.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { gql } from '../graphql/graphql-client.js';
import { http } from '../support/http.js';
import { modelOf } from '../support/model-of.js';
import { startServer, type TestServer } from '../support/start-server.js';

const MODEL = modelOf(`
  type Person {
    id: ID!
    name: String!
    notes: [Note!]! @relation(inverse: "author")
    friends: [Person!]!
  }
  type Note {
    id: ID!
    title: String!
    author: Person!
  }
`);

/** The numeric ids the seed makes (as the demo's users are numbered). */
const NUMERIC = Array.from({ length: 12 }, (_, i) => String(i + 1));

interface Row {
  readonly id: string;
  readonly _cursor?: string;
}

describeEachDialect('ids order shorter first, then as text', (ctx) => {
  let server: TestServer;
  /** Every person's id in the expected order: 1 … 12, then the three made through the API, oldest first. */
  let natural: string[];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { model: MODEL, seed: { counts: { Person: 12, Note: 0 }, linksPerRecord: 0 }, files: false });
    const made: string[] = [];
    for (const name of ['Ada', 'Bo', 'Cy']) {
      const created = await http(server.url, 'POST', '/people', { body: { name } });
      expect(created.status).toBe(201);
      made.push(created.json.id as string);
    }
    expect(made.every((id) => id.length === 26)).toBe(true);
    natural = [...NUMERIC, ...made];
    // Two names shared by six people each, so that a sort on the name leaves ties for the id to break.
    for (const id of NUMERIC) expect((await http(server.url, 'PATCH', `/people/${id}`, { body: { name: Number(id) % 2 === 1 ? 'Odd' : 'Even' } })).status).toBe(200);
    // Person 1's friends: everyone else, linked in an order that is neither text nor natural.
    for (const id of [...natural.slice(1)].reverse()) expect((await http(server.url, 'PUT', `/people/1/friends/${id}`)).status).toBe(204);
  });
  afterAll(async () => {
    await server.close();
  });

  const restIds = async (path: string): Promise<{ ids: string[]; next: string | null; prev: string | null }> => {
    const response = await http(server.url, 'GET', path);
    expect(response.status, response.text).toBe(200);
    return { ids: (response.json.data as Row[]).map((row) => row.id), next: response.json.nextCursor as string | null, prev: response.json.prevCursor as string | null };
  };

  it('lists records in that order over REST, in a root list and a sub-collection', async () => {
    expect((await restIds('/people?limit=100')).ids).toEqual(natural);
    expect((await restIds('/people/1/friends?limit=100')).ids).toEqual(natural.slice(1));
  });

  it('pages forward and back across 9 → 10 over REST with the cursors it gives', async () => {
    for (const base of ['/people?limit=4', '/people/1/friends?limit=4']) {
      const expected = base.startsWith('/people/1/') ? natural.slice(1) : natural;
      const forward: string[] = [];
      let page = await restIds(base);
      forward.push(...page.ids);
      while (page.next !== null) {
        page = await restIds(`${base}&after=${page.next}`);
        forward.push(...page.ids);
      }
      expect(forward).toEqual(expected);
      // Back from the end, each page before the first row of the last one read.
      const backward: string[] = [...page.ids];
      while (page.prev !== null) {
        page = await restIds(`${base}&before=${page.prev}`);
        backward.unshift(...page.ids);
      }
      expect(backward).toEqual(expected);
    }
  });

  it('breaks ties of a sort by id in that order, in the sort\'s direction', async () => {
    const even = NUMERIC.filter((id) => Number(id) % 2 === 0);
    const odd = NUMERIC.filter((id) => Number(id) % 2 === 1);
    const [ada, bo, cy] = natural.slice(12) as [string, string, string];
    const expected = [ada, bo, cy, ...even, ...odd];
    expect((await restIds('/people?limit=100&sort=name')).ids).toEqual(expected);
    expect((await restIds('/people?limit=100&sort=-name')).ids).toEqual([...expected].reverse());
    const sorted = await gql(server.url, '{ people(first: 100, orderBy: [{ field: name, direction: DESC }]) { id } }');
    expect((sorted.json.data.people as Row[]).map((row) => row.id)).toEqual([...expected].reverse());
  });

  it('compares ids in filters in the same order: id gt 9 starts at 10', async () => {
    expect((await restIds('/people?limit=100&filter[id][gt]=9')).ids).toEqual(natural.slice(9));
    expect((await restIds('/people?limit=100&filter[id][lte]=10')).ids).toEqual(NUMERIC.slice(0, 10));
    const data = await gql(server.url, '{ people(first: 100, filter: { id: { lt: "10" } }) { id } }');
    expect((data.json.data.people as Row[]).map((row) => row.id)).toEqual(NUMERIC.slice(0, 9));
  });

  it('lists and pages in that order over GraphQL, forward with first/after and back with last/before', async () => {
    const all = await gql(server.url, '{ people(first: 100) { id friends(first: 100) { id } } }');
    const people = all.json.data.people as (Row & { friends: Row[] })[];
    expect(people.map((row) => row.id)).toEqual(natural);
    expect(people[0]?.friends.map((row) => row.id)).toEqual(natural.slice(1));
    // The nested list read from its end: its last rows, still in order.
    const last = await gql(server.url, '{ person(id: "1") { friends(last: 7) { id } } }');
    expect((last.json.data.person.friends as Row[]).map((row) => row.id)).toEqual(natural.slice(-7));

    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await gql(server.url, 'query ($after: String) { people(first: 4, after: $after) { id _cursor } }', { after });
      const rows = page.json.data.people as Row[];
      if (rows.length === 0) break;
      forward.push(...rows.map((row) => row.id));
      after = rows.at(-1)?._cursor;
    }
    expect(forward).toEqual(natural);

    const backward: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await gql(server.url, 'query ($before: String) { people(last: 4, before: $before) { id _cursor } }', { before });
      const rows = page.json.data.people as Row[];
      if (rows.length === 0) break;
      backward.unshift(...rows.map((row) => row.id));
      before = rows[0]?._cursor;
    }
    expect(backward).toEqual(natural);
  });
});
