/**
 * A change a caller may not see leaves what that caller gets untouched,
 * headers included: `Last-Modified` comes from per-table clocks, so under
 * rules that hide rows it would move when an admin edits a hidden order.
 * And revalidation stays correct: a change the caller may see is never
 * answered 304, by ETag or by date.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'hidden-changes-test-secret-0123456789abcdef';
const ADMIN_KEY = 'hidden-changes-admin-key-0123456789';
const ORDERS_QUERY = '{ orders(first: 50) { id status note } }';

/** What a cache keeps of an answer: status, body and the headers it revalidates and varies with. */
function seen(response: HttpResponse): Record<string, unknown> {
  const headers = Object.fromEntries(['etag', 'last-modified', 'cache-control', 'vary'].map((name) => [name, response.headers.get(name)]));
  return { status: response.status, body: response.text, headers };
}

/**
 * Waits out the second after the last write: Last-Modified has whole seconds
 * and is sent only once the second of the change is over (validators.ts).
 * A wait, not a timed assertion: what follows holds however long it takes.
 */
async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
}

describeEachDialect('Changes hidden by rules', (ctx) => {
  let server: TestServer;
  let member: string;
  let memberOrder: string;
  let hiddenOrder: string;

  const as = (token: string | undefined, extra: Record<string, string> = {}): Record<string, string> => ({ ...extra, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) });
  const restOrders = (token: string | undefined, extra: Record<string, string> = {}): Promise<HttpResponse> => http(server.url, 'GET', '/orders?limit=50', { headers: as(token, extra) });
  const graphqlOrders = (token: string | undefined, extra: Record<string, string> = {}): Promise<HttpResponse> =>
    http(server.url, 'GET', `/graphql?query=${encodeURIComponent(ORDERS_QUERY)}`, { headers: as(token, { accept: 'application/graphql-response+json', ...extra }) });
  const editOrder = async (id: string, note: string): Promise<void> => {
    const edited = await http(server.url, 'PATCH', `/orders/${id}`, { body: { note }, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/merge-patch+json' } });
    expect(edited.status).toBe(200);
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 10, Post: 10, Product: 5, Order: 12, OrderItem: 12 }, linksPerRecord: 2 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const orders = (await http(server.url, 'GET', '/orders?limit=100&fields=id,customer', { headers: as(ADMIN_KEY) })).json.data as { id: string; customer: string }[];
    const [first] = orders;
    if (first === undefined) throw new Error('the seed made no orders');
    memberOrder = first.id;
    const other = orders.find((order) => order.customer !== first.customer);
    if (other === undefined) throw new Error('every order has one customer');
    hiddenOrder = other.id;
    const token = await new SignJWT({ sub: first.customer, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    member = token;
  });
  afterAll(async () => {
    await server.close();
  });

  it('an admin’s edit of an order a caller may not see changes nothing that caller gets, in REST and GraphQL GET, anonymous or signed in', async () => {
    const askers = [undefined, member];
    const read = (extra: (i: number) => Record<string, string>): Promise<HttpResponse[]> =>
      Promise.all(askers.flatMap((token, i) => [restOrders(token, extra(2 * i)), graphqlOrders(token, extra(2 * i + 1))]));
    // A date is given only for a second that is over: let the seed's be.
    await nextSecond();
    const before = await read(() => ({}));
    for (const response of before) expect(response.status).toBe(200);
    // Revalidating by date with what they were given (or, given none, any date) must tell them nothing either.
    const since = (i: number): Record<string, string> => ({ 'if-modified-since': before[i]?.headers.get('last-modified') ?? new Date(Date.now() - 60_000).toUTCString() });
    const datedBefore = await read(since);
    await editOrder(hiddenOrder, 'edited where nobody but its customer looks');
    await nextSecond();
    expect((await read(() => ({}))).map(seen)).toEqual(before.map(seen));
    expect((await read(since)).map(seen)).toEqual(datedBefore.map(seen));
  });

  it('a change the caller may see is never answered 304, by ETag or by date; an unchanged answer is, by ETag', async () => {
    for (const read of [restOrders, graphqlOrders]) {
      const first = await read(member);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag') ?? '';
      expect((await read(member, { 'if-none-match': etag })).status).toBe(304);
      const since = first.headers.get('last-modified') ?? new Date().toUTCString();
      await editOrder(memberOrder, `seen by its customer ${read === restOrders ? 'in REST' : 'in GraphQL'}`);
      const byTag = await read(member, { 'if-none-match': etag });
      expect(byTag.status).toBe(200);
      expect(byTag.text).not.toBe(first.text);
      const byDate = await read(member, { 'if-modified-since': since });
      expect(byDate.status).toBe(200);
      expect(byDate.text).toBe(byTag.text);
    }
  });

  it('keeps Last-Modified and If-Modified-Since for a caller who sees every row (the admin)', async () => {
    await nextSecond();
    const first = await restOrders(ADMIN_KEY);
    const lastModified = first.headers.get('last-modified');
    expect(lastModified).not.toBeNull();
    expect((await restOrders(ADMIN_KEY, { 'if-modified-since': lastModified ?? '' })).status).toBe(304);
    await editOrder(hiddenOrder, 'the admin sees this');
    await nextSecond();
    const after = await restOrders(ADMIN_KEY, { 'if-modified-since': lastModified ?? '' });
    expect(after.status).toBe(200);
    expect(after.text).toContain('the admin sees this');
  });
});
