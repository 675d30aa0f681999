/**
 * Hostile input, in both styles, on both databases: a real server with a
 * little data takes a bounded catalogue of bad requests (every REST route
 * shape and query parameter, record bodies and envelopes; GraphQL
 * documents, variables and HTTP parameters), fast-check mutations of valid
 * requests and requests generated from the model (test/support/hostile-requests.ts).
 *
 * Every answer must be what the errors section of docs/architecture.md
 * promises: never a 500 (only a 503 for an outage), every REST 4xx an RFC
 * 9457 problem with a registered code, every GraphQL error a registered
 * `extensions.code` (INTERNAL included: it is a 500 in a 200's clothing);
 * and a request whose answer is known (`expect`: a 413, a 409, a 204 with
 * Allow…) gets that answer. Afterwards the server still answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_REGISTRY, isErrorCode } from '../../src/errors/registry.js';
import { buildGraphqlSchema } from '../../src/graphql/schema/build-schema.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import {
  generatedOperations,
  generatedRestReads,
  graphqlCatalogue,
  incompressible,
  LONG_BODY_TITLE,
  mutatedRequests,
  restCatalogue,
  sendAll,
  validRequests,
  type HostileFixtures,
  type HostileResponse,
} from '../support/hostile-requests.js';
import { jpeg, png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** Fixed: the same requests every run, so a failure names a request that can be replayed. */
const SEED = 20_260_731;
const CONCURRENCY = 4;
const OUTAGE_CODES: readonly string[] = ['DATABASE_UNAVAILABLE', 'DATABASE_TIMEOUT', 'QUERY_TIMEOUT'];

function isGraphql(path: string): boolean {
  return path === '/graphql' || path.startsWith('/graphql?');
}

/** What is wrong with one answer, as sentences (none when it keeps every promise). */
function violations(answer: HostileResponse): string[] {
  if (answer.status === 0) return [`no answer: ${answer.text}`];
  return [...unexpected(answer), ...brokenPromises(answer)];
}

/** How an answer differs from the one its request expects. */
function unexpected({ request, status, json, allow, text }: HostileResponse): string[] {
  const { expect: wanted } = request;
  if (wanted === undefined) return [];
  const out: string[] = [];
  const codes = isGraphql(request.path) ? graphqlCodes(json) : [(json as { code?: unknown } | undefined)?.code].filter((code) => code !== undefined);
  if (wanted.status !== undefined && status !== wanted.status) out.push(`expected status ${wanted.status}, got ${status}: ${text.slice(0, 200)}`);
  if (wanted.code !== undefined && !codes.includes(wanted.code)) out.push(`expected code ${wanted.code}, got ${JSON.stringify(codes)}: ${text.slice(0, 200)}`);
  if (wanted.code === undefined && wanted.status !== undefined && wanted.status < 300 && codes.length > 0) out.push(`expected no error, got ${JSON.stringify(codes)}`);
  if (wanted.allow !== undefined && allow !== wanted.allow) out.push(`expected Allow: ${wanted.allow}, got ${String(allow)}`);
  return out;
}

/** The promises every answer keeps, whatever was asked. */
function brokenPromises(answer: HostileResponse): string[] {
  const { status, json, request } = answer;
  const out: string[] = [];
  if (status === 304 || request.method === 'HEAD') return out;
  const graphql = isGraphql(request.path);
  const codes: unknown[] = graphql ? graphqlCodes(json) : [(json as { code?: unknown } | undefined)?.code];
  if (status >= 500) {
    if (status !== 503 || !codes.every((code) => typeof code === 'string' && OUTAGE_CODES.includes(code))) out.push(`status ${status} ${answer.text.slice(0, 300)}`);
    return out;
  }
  if (graphql) {
    if (status >= 400 && codes.length === 0) out.push(`GraphQL ${status} without errors[]: ${answer.text.slice(0, 200)}`);
    if (status >= 400 && !/^application\/(graphql-response\+)?json/.test(answer.contentType)) out.push(`GraphQL ${status} as ${answer.contentType}`);
    for (const code of codes) {
      if (typeof code !== 'string' || !isErrorCode(code)) out.push(`GraphQL error code ${String(code)} is not registered`);
      else if (code === 'INTERNAL') out.push(`GraphQL INTERNAL error: ${answer.text.slice(0, 300)}`);
    }
    return out;
  }
  if (status < 400) return out;
  const problem = json as Record<string, unknown> | undefined;
  const code = problem?.['code'];
  if (!answer.contentType.startsWith('application/problem+json')) out.push(`${status} as ${answer.contentType || 'no content type'}`);
  if (typeof code !== 'string' || !isErrorCode(code)) return [...out, `problem code ${String(code)} is not registered: ${answer.text.slice(0, 200)}`];
  if (ERROR_REGISTRY[code].status !== status || problem?.['status'] !== status) out.push(`${code} answered ${status}, registered as ${ERROR_REGISTRY[code].status}`);
  if (problem?.['type'] !== `urn:diglot:problem:${code}` || problem['title'] !== ERROR_REGISTRY[code].title) out.push(`problem type/title do not match ${code}`);
  const errors = problem?.['errors'];
  if (errors !== undefined) {
    const items = Array.isArray(errors) ? (errors as Record<string, unknown>[]) : [];
    if (items.length === 0) out.push('problem errors[] is not a non-empty list');
    for (const item of items) {
      if (typeof item['pointer'] !== 'string' || !item['pointer'].startsWith('/')) out.push(`errors[] pointer ${String(item['pointer'])} is not a JSON pointer`);
      if (typeof item['code'] !== 'string' || !isErrorCode(item['code'])) out.push(`errors[] code ${String(item['code'])} is not registered`);
    }
  }
  return out;
}

function graphqlCodes(json: unknown): unknown[] {
  const errors = (json as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? errors.map((error: { extensions?: { code?: unknown } }) => error.extensions?.code) : [];
}

/** The failures of a batch, one line each, with the request that caused them. */
function report(answers: readonly HostileResponse[]): string[] {
  return answers.flatMap((answer) => violations(answer).map((problem) => `${answer.request.method} ${answer.request.path.slice(0, 200)} [${answer.request.label}]: ${problem}`));
}

describeEachDialect('hostile input', (ctx) => {
  let server: TestServer;
  let fx: HostileFixtures;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 12, Post: 20, Product: 5, Order: 5, OrderItem: 8 }, linksPerRecord: 2, pictures: 2 },
    });
    const pictured = await http(server.url, 'GET', '/users/1?fields=profilePicture');
    const other = await http(server.url, 'POST', '/users', { body: { name: 'Other', email: `other-${ctx.dialect}@example.org` } });
    expect(other.status).toBe(201);
    const takenEmail = `taken-${ctx.dialect}@example.org`;
    const taken = await http(server.url, 'POST', '/users', { body: { name: 'Taken', email: takenEmail } });
    expect(taken.status).toBe(201);
    // Two posts to sort on long text: a page of one has a 200 KB cursor.
    for (const seed of ['long-a', 'long-b']) {
      const post = await http(server.url, 'POST', '/posts', { body: { title: LONG_BODY_TITLE, body: incompressible(100_000, seed), author: '1' } });
      expect(post.status).toBe(201);
    }
    // Stored as the demo pictures are (pinned for the server's life), so nothing in the run releases them.
    const files = server.files;
    if (files === undefined) throw new Error('the server has no file store');
    fx = {
      model: server.model,
      ids: { User: '1', Post: '1', Product: '1', Order: '1', OrderItem: '1' },
      otherUserId: other.json.id as string,
      fileKey: String(pictured.json.profilePicture).split('/')[2] as string,
      png: await png(7, 8, 8),
      strips: { jpeg: await files.putGenerated(await jpeg(8, 1, 60), 'jpeg'), png: await files.putGenerated(await png(9, 1, 20_000), 'png') },
      takenEmail,
    };
  });
  afterAll(async () => {
    await server.close();
  });

  // First, on the seeded data alone: the hostile run below writes records of its own.
  describe('what the hostile run found', () => {
    /** Every page of `query`, forward by nextCursor. */
    async function walk(query: string): Promise<string[]> {
      const ids: string[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 50; pages++) {
        const page = await http(server.url, 'GET', `/posts?fields=id&limit=3&${query}${after === null ? '' : `&after=${after}`}`);
        expect(page.status, `after ${after === null ? '-' : Buffer.from(after, 'hex').toString()}`).toBe(200);
        ids.push(...page.json.data.map((post: { id: string }) => post.id));
        after = page.json.nextCursor;
        if (after === null) break;
      }
      return ids;
    }

    it('pages on through a NULL in a later sort key, in both directions of sort', async () => {
      // Drafts have no publishedAt: cursors of ["status", null, id] are issued and must be accepted back.
      for (const sort of ['status,publishedAt', '-status,-publishedAt', 'publishedAt,title']) {
        const all = await http(server.url, 'GET', `/posts?fields=id&limit=100&sort=${sort}`);
        const ids = all.json.data.map((post: { id: string }) => post.id);
        expect(ids.length).toBeGreaterThan(6);
        expect(await walk(`sort=${sort}`), sort).toEqual(ids);
      }
    });

    it('binds a sub-collection’s parent id after the params of its select list (SQLite placeholders are positional)', async () => {
      // A user with followers and orders, whose id is not the page size or an image width (a swap would go unseen).
      const orders = await http(server.url, 'GET', '/orders?fields=id,customer,total&limit=100');
      const customer = (orders.json.data as { customer: string }[]).map((order) => order.customer).find((id) => !['1', '2', '20', '64'].includes(id));
      expect(customer).toBeDefined();
      const theirs = (orders.json.data as { id: string; customer: string; total: number }[]).filter((order) => order.customer === customer && order.total >= 1).map((order) => order.id);
      const withItems = await http(server.url, 'GET', `/users/${customer}/orders?fields=id&include=items&items.limit=1&count=true&filter[total][gte]=1`);
      expect(withItems.status).toBe(200);
      expect(withItems.json.data.map((order: { id: string }) => order.id).sort()).toEqual([...theirs].sort());
      expect(withItems.json.totalCount).toBe(theirs.length);

      const plain = await http(server.url, 'GET', `/users/${customer}/followers?fields=id&limit=100`);
      const sized = await http(server.url, 'GET', `/users/${customer}/followers?fields=id,profilePicture&profilePicture.size=64&limit=100`);
      expect(sized.status).toBe(200);
      expect(sized.json.data.map((user: { id: string }) => user.id)).toEqual(plain.json.data.map((user: { id: string }) => user.id));
      for (const user of sized.json.data as { profilePicture: string | null }[]) if (user.profilePicture !== null) expect(user.profilePicture).toMatch(/\/64$/);
    });
  });

  it('answers the valid requests the mutations start from', async () => {
    const answers = await sendAll(server.url, validRequests(fx), CONCURRENCY);
    for (const answer of answers) {
      expect(answer.status, answer.request.label).toBeLessThan(300);
      expect(graphqlCodes(answer.json), answer.request.label).toEqual([]);
    }
  });

  it('answers the REST catalogue with 4xx problems, never a 500', async () => {
    const requests = restCatalogue(fx);
    const answers = await sendAll(server.url, requests, CONCURRENCY);
    expect(report(answers)).toEqual([]);
    // The catalogue reaches the engine, not only the router: most answers are refusals of the request's content.
    expect(answers.filter((answer) => answer.status === 400).length).toBeGreaterThan(requests.length / 3);
  }, 40_000);

  it('answers the GraphQL catalogue with registered error codes, never a 500', async () => {
    const answers = await sendAll(server.url, graphqlCatalogue(fx), CONCURRENCY);
    expect(report(answers)).toEqual([]);
    expect(answers.some((answer) => graphqlCodes(answer.json).includes('GRAPHQL_VALIDATION_FAILED'))).toBe(true);
  }, 40_000);

  it('answers mutated and generated requests in both styles, never a 500', async () => {
    const requests = [
      ...mutatedRequests(fx, SEED, 200),
      ...generatedRestReads(fx, SEED, 150),
      ...generatedOperations(fx, buildGraphqlSchema(server.model).schema, SEED, 150),
    ];
    const answers = await sendAll(server.url, requests, CONCURRENCY);
    expect(report(answers)).toEqual([]);
  }, 40_000);

  it('still answers afterwards, in both styles', async () => {
    const users = await http(server.url, 'GET', '/users?limit=2');
    expect(users.status).toBe(200);
    expect(users.json.data).toHaveLength(2);
    const graphql = await http(server.url, 'POST', '/graphql', { body: { query: '{ users(first: 2) { id name } usersCount }' } });
    expect(graphql.status).toBe(200);
    expect(graphql.json.errors).toBeUndefined();
    expect(graphql.json.data.users).toHaveLength(2);
  });
});
