import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

/** `levels` levels of records: users, then followers of followers … */
function restChain(levels: number, limit = 1): string {
  const paths = Array.from({ length: levels - 1 }, (_, i) => Array.from({ length: i + 1 }, () => 'followers').join('.'));
  return `/users?limit=${limit}&include=${paths.at(-1) ?? ''}${paths.map((path) => `&${path}.limit=${limit}`).join('')}`;
}

function graphqlChain(levels: number, first = 1): string {
  let inner = 'name';
  for (let i = 0; i < levels - 1; i++) inner = `followers(first: ${first}) { ${inner} }`;
  return `{ users(first: ${first}) { ${inner} } }`;
}

describeEachDialect('Read limits are the plan’s, the same in both styles', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 } });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Both styles refused before any SQL ran, with the same code, limit and detail; returns that detail. */
  async function refusedInBoth(path: string, query: string): Promise<{ detail: string; limit: string }> {
    const before = server.db.statementCount;
    const rest: HttpResponse = await http(server.url, 'GET', path);
    const graphql = await gql(server.url, query, undefined, { accept: 'application/graphql-response+json' });
    expect(server.db.statementCount).toBe(before);
    expect(rest.status).toBe(400);
    expect(rest.headers.get('content-type')).toContain('application/problem+json');
    expect(rest.json.code).toBe('QUERY_TOO_COMPLEX');
    expect(graphql.status).toBe(400);
    expect(graphql.json.data).toBeUndefined();
    const [error] = graphql.json.errors;
    expect(error.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(error.extensions.limit).toBe(rest.json.limit);
    expect(error.message).toBe(rest.json.detail);
    return { detail: rest.json.detail, limit: rest.json.limit };
  }

  it('refuses records nested deeper than maxDepth', async () => {
    const { detail, limit } = await refusedInBoth(restChain(13), graphqlChain(13));
    expect(limit).toBe('maxDepth');
    expect(detail).toContain('the limit is 12 (maxDepth)');
    expect((await http(server.url, 'GET', restChain(12))).status).toBe(200);
    expect((await gql(server.url, graphqlChain(12))).json.errors).toBeUndefined();
  });

  it('refuses an include chain far past the limit at once, without building it', async () => {
    const chain = Array.from({ length: 500 }, () => 'author.posts').join('.');
    const response = await http(server.url, 'GET', `/posts?include=${chain}`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxDepth' });
  });

  it('refuses more embedded relations than maxRelations', async () => {
    // A binary tree of followers and following 5 levels down embeds 62 relations (4 levels: 30).
    let paths = [''];
    for (let level = 0; level < 5; level++) paths = paths.flatMap((path) => [`${path}followers.`, `${path}following.`]);
    paths = paths.map((path) => path.slice(0, -1));
    const rest = await http(server.url, 'GET', `/users?limit=1&include=${paths.join(',')}`);
    expect(rest.status).toBe(400);
    expect(rest.json).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRelations' });
    const tree = (levels: number): string => (levels === 0 ? 'name' : `followers(first: 1) { ${tree(levels - 1)} } following(first: 1) { ${tree(levels - 1)} }`);
    const graphql = await gql(server.url, `{ users(first: 1) { ${tree(5)} } }`, undefined, { accept: 'application/graphql-response+json' });
    expect(graphql.status).toBe(400);
    expect(graphql.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRelations' });
    expect(graphql.json.errors[0].message).toBe(rest.json.detail);
    expect((await gql(server.url, `{ users(first: 1) { ${tree(4)} } }`)).json.errors).toBeUndefined();
  });

  it('refuses an estimated cost over maxCost with the same figure in both styles', async () => {
    const path = '/users?limit=100&include=followers.followers&followers.limit=100&followers.followers.limit=100';
    const query = '{ users(first: 100) { followers(first: 100) { followers(first: 100) { name } } } }';
    const { detail, limit } = await refusedInBoth(path, query);
    expect(limit).toBe('maxCost');
    expect(detail).toBe('This query may read about 1010100 rows; the limit is 50000 (maxCost). Ask for smaller pages or less nesting.');
  });

  it('checks a mutation’s selection before it writes anything', async () => {
    const count = async (): Promise<number> => (await http(server.url, 'GET', '/users?count=true&limit=0')).json.totalCount as number;
    const before = await count();
    let inner = 'name';
    for (let i = 0; i < 13; i++) inner = `followers(first: 1) { ${inner} }`;
    const response = await gql(server.url, `mutation { createUser(input: { name: "Deep", email: "deep@example.com" }) { ${inner} } }`);
    expect(response.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxDepth' });
    expect(response.json.data).toBeUndefined();
    expect(await count()).toBe(before);
  });
});

describeEachDialect('The response-size ceiling', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 30, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 }, engine: { maxResponseLength: 4000 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses an answer over the ceiling in both styles, and serves one under it', async () => {
    const rest = await http(server.url, 'GET', '/users?limit=30');
    expect(rest.status).toBe(400);
    expect(rest.json).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxResponseLength' });
    const graphql = await gql(server.url, '{ users(first: 30) { id name email bio location website company jobTitle } }');
    expect(graphql.json.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxResponseLength' });
    expect((await http(server.url, 'GET', '/users?limit=2&fields=name')).status).toBe(200);
    expect((await http(server.url, 'GET', `/users/${(await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id}`)).status).toBe(200);
  });
});
