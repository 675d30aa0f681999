import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from './graphql-client.js';

function nested(depth: number): string {
  let inner = 'name';
  for (let i = 0; i < depth - 1; i++) inner = `followers(first: 1) { ${inner} }`;
  return `{ users(first: 1) { ${inner} } }`;
}

describeEachDialect('GraphQL limits on hostile queries', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 } });
  });
  afterAll(async () => {
    await server.close();
  });

  /** Sends the query and checks it was refused before any SQL ran; returns the errors. */
  async function refused(query: string, accept = 'application/graphql-response+json'): Promise<{ message: string; extensions: { code: string; limit?: string } }[]> {
    const before = server.db.statementCount;
    const response = await gql(server.url, query, undefined, { accept });
    expect(server.db.statementCount).toBe(before);
    expect(response.status).toBe(400);
    expect(response.json.data).toBeUndefined();
    return response.json.errors;
  }

  it('refuses a depth-30 query', async () => {
    const errors = await refused(nested(30));
    expect(errors[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxDepth' });
    expect(errors[0]?.message).toContain('maxDepth');
    const fine = await gql(server.url, nested(12));
    expect(fine.json.errors).toBeUndefined();
  });

  it('refuses a 1,000-alias query', async () => {
    const aliases = Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ');
    const errors = await refused(`{ ${aliases} }`);
    expect(errors[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    // Under the token limit, the alias limit itself refuses it.
    const fewer = Array.from({ length: 31 }, (_, i) => `a${i}: __typename`).join(' ');
    const aliasErrors = await refused(`{ ${fewer} }`);
    expect(aliasErrors.map((error) => error.extensions.limit)).toContain('maxAliases');
  });

  it('refuses a cost-explosive query of nested lists', async () => {
    const errors = await refused(`{ users(first: 100) { followers(first: 100) { followers(first: 100) { name } } } }`);
    expect(errors[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxCost' });
    expect(errors[0]?.message).toMatch(/about 1010100 rows; the limit is 50000/);
  });

  it('counts the cost with variables and fragments as executed', async () => {
    const query = `query($n: Int!) { users(first: $n) { ...F } } fragment F on User { followers(first: $n) { following(first: $n) { id } } }`;
    const before = server.db.statementCount;
    const big = await gql(server.url, query, { n: 100 });
    expect(big.json.errors[0].extensions.limit).toBe('maxCost');
    expect(server.db.statementCount).toBe(before);
    const small = await gql(server.url, query, { n: 5 });
    expect(small.json.errors).toBeUndefined();
  });

  it('refuses too many root fields, directives and tokens', async () => {
    const roots = Array.from({ length: 21 }, (_, i) => `u${i}: usersCount`).join(' ');
    const rootErrors = await refused(`{ ${roots} }`);
    expect(rootErrors.map((error) => error.extensions.limit)).toContain('maxRootFields');
    const directives = Array.from({ length: 51 }, () => '@include(if: true)').join(' ');
    expect((await refused(`{ __typename ${directives} }`))[0]?.extensions.limit).toBe('maxDirectives');
    const long = `{ __typename(a: [${Array.from({ length: 2100 }, () => '1').join(' ')}]) }`;
    expect((await refused(long))[0]?.extensions.limit).toBe('maxTokens');
  });

  it('refuses introspection that re-enters itself, but not the standard introspection query', async () => {
    const errors = await refused(`{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }`);
    expect(errors[0]?.extensions.limit).toBe('introspection');
    const { getIntrospectionQuery } = await import('graphql');
    const full = await gql(server.url, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true }));
    expect(full.json.errors).toBeUndefined();
    expect(full.json.data.__schema.types.length).toBeGreaterThan(20);
  });

  it('answers 200 with application/json, as GraphQL over HTTP asks', async () => {
    const response = await gql(server.url, nested(30));
    expect(response.status).toBe(200);
    expect(response.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });
});

describeEachDialect('GraphQL in production mode', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: false, server: { graphql: { hideSuggestions: true }, limits: { maxDepth: 3 } } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('drops field suggestions from messages', async () => {
    const response = await gql(server.url, `{ users { nmae } }`);
    expect(response.json.errors[0].message).toBe('Cannot query field "nmae" on type "User".');
  });

  it('applies configured limits', async () => {
    const response = await gql(server.url, nested(4));
    expect(response.json.errors[0].extensions.limit).toBe('maxDepth');
    expect((await gql(server.url, nested(3))).json.errors).toBeUndefined();
  });
});
