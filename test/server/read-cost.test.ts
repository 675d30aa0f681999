import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { graphqlWsClient, type LiveGraphqlClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const POSTS = 200;
const USERS = 20;

/** Points left in the caller's budget, from an answer's RateLimit field (`"anonymous";r=<left>;t=<s>`). */
function left(response: HttpResponse): number {
  const match = /;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '');
  if (match === null) throw new Error(`no RateLimit field (status ${response.status})`);
  return Number(match[1]);
}

/**
 * Issue 36, finding 6: a read costs the rows it may scan, not only the rows
 * it returns, with one cost function for REST, GraphQL and live reads.
 */
describeEachDialect('A read is charged the rows it may scan, the same in both styles', (ctx) => {
  let server: TestServer;
  const clients: LiveGraphqlClient[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: USERS, Post: POSTS, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 },
      server: { rateLimits: { anonymous: { points: 100_000_000, window: 3600 } } },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server.close();
  });

  /** A request that costs one point: a record by id. */
  const probe = (): Promise<HttpResponse> => http(server.url, 'GET', '/users/1?fields=id');

  /** The points `send` was charged: the budget after a probe, less what its own answer says is left. */
  async function charged(send: () => Promise<HttpResponse>): Promise<number> {
    const before = left(await probe());
    const response = await send();
    expect(response.status).toBe(200);
    expect(response.json.errors).toBeUndefined();
    return before - left(response);
  }

  const rest = (path: string) => (): Promise<HttpResponse> => http(server.url, 'GET', path);
  const graphql = (query: string) => (): Promise<HttpResponse> => gql(server.url, query);

  describe('a count over the whole table costs the table', () => {
    it('without a filter', async () => {
      const inGraphql = await charged(graphql('{ postsCount }'));
      const inRest = await charged(rest('/posts?count=true&limit=0'));
      expect(inRest).toBe(inGraphql);
      expect(inGraphql).toBeGreaterThanOrEqual(POSTS);
      expect(inGraphql).toBeLessThan(2 * POSTS);
    });

    it('with a filter no index serves (contains)', async () => {
      const inGraphql = await charged(graphql('{ postsCount(filter: { body: { contains: "zqx" } }) }'));
      const inRest = await charged(rest('/posts?count=true&limit=0&filter[body][contains]=zqx'));
      expect(inRest).toBe(inGraphql);
      expect(inGraphql).toBeGreaterThanOrEqual(POSTS);
      // Twenty of them cost twenty times as much: aliases are no discount.
      const aliases = Array.from({ length: 20 }, (_, i) => `c${i}: postsCount(filter: { body: { contains: "zq${i}" } })`).join(' ');
      expect(await charged(graphql(`{ ${aliases} }`))).toBe(20 * inGraphql);
    });
  });

  it('an indexed lookup keeps the cost of the rows it returns', async () => {
    const count = await charged(graphql('{ postsCount(filter: { author: { eq: "1" } }) }'));
    expect(count).toBe(await charged(rest('/posts?count=true&limit=0&filter[author]=1')));
    expect(count).toBe(1);
    const page = await charged(graphql('{ posts(first: 5) { id } }'));
    expect(page).toBe(await charged(rest('/posts?limit=5&fields=id')));
    expect(page).toBe(5);
  });

  it('a page of a list filtered on an unindexed field costs the table, in both styles', async () => {
    const inGraphql = await charged(graphql('{ posts(first: 5, filter: { body: { contains: "zqx" } }) { id } }'));
    const inRest = await charged(rest('/posts?limit=5&fields=id&filter[body][contains]=zqx'));
    expect(inRest).toBe(inGraphql);
    expect(inGraphql).toBeGreaterThanOrEqual(POSTS + 5);
  });

  it('an embedded list filtered on an unindexed field costs the related rows per record, in both styles', async () => {
    const plain = await charged(graphql('{ users(first: 2) { id posts(first: 3) { id } } }'));
    const inGraphql = await charged(graphql('{ users(first: 2) { id posts(first: 3, filter: { title: { contains: "a" } }) { id } } }'));
    const inRest = await charged(rest('/users?limit=2&fields=id&include=posts&posts.limit=3&posts.fields=id&posts.filter[title][contains]=a'));
    expect(inRest).toBe(inGraphql);
    // Two users, each with about POSTS / USERS posts to look through.
    expect(inGraphql - plain).toBeGreaterThanOrEqual((2 * POSTS) / USERS);
    expect(inGraphql - plain).toBeLessThan(POSTS);
  });

  it('a live query is charged its start at the same cost as the query', async () => {
    const query = '{ postsCount(filter: { body: { contains: "zqlive" } }) }';
    const once = await charged(graphql(query));
    expect(once).toBeGreaterThanOrEqual(POSTS);
    const client = graphqlWsClient(server.url);
    clients.push(client);
    const before = left(await probe());
    const subscription = client.subscribe(`subscription ${query}`);
    expect(await subscription.results.next()).toEqual({ data: { postsCount: 0 } });
    const after = left(await probe());
    subscription.close();
    // The probe after it costs one point.
    expect(before - after - 1).toBe(once);
  });
});
