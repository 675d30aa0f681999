import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * Two Diglot instances on one database (two SQLite connections to one file,
 * or two PostgreSQL pools), as behind a load balancer. Each keeps its own
 * snapshot of the change clocks for plain reads; a validator must still
 * never outlive a write made through the other instance.
 */
describeEachDialect('two instances on one database', (ctx) => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startServer(() => ctx.open());
    b = await startServer(() => ctx.open(), { seed: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('a revalidation on one instance sees a write made through the other at once', async () => {
    const created = await http(a.url, 'POST', '/users', { body: { name: 'Twice', email: 'twice@example.org' } });
    const path = `/users/${created.json.id as string}`;
    for (let round = 0; round < 3; round++) {
      // A plain read, then a revalidation, leave instance A with a snapshot of the clocks and a remembered ETag.
      const first = await http(a.url, 'GET', path);
      const etag = first.headers.get('etag') ?? '';
      expect((await http(a.url, 'GET', path, { headers: { 'if-none-match': etag } })).status).toBe(304);

      const bio = `changed through B, round ${round}`;
      expect((await http(b.url, 'PATCH', path, { body: { bio } })).status).toBe(200);

      // Within the same second: the data A serves is B's, and A's old ETag no longer matches.
      const revalidated = await http(a.url, 'GET', path, { headers: { 'if-none-match': etag } });
      expect(revalidated.status).toBe(200);
      expect(revalidated.json.bio).toBe(bio);
      expect(revalidated.headers.get('etag')).not.toBe(etag);
      const plain = await http(a.url, 'GET', path);
      expect(plain.json.bio).toBe(bio);
      expect((await http(a.url, 'GET', path, { headers: { 'if-none-match': plain.headers.get('etag') ?? '' } })).status).toBe(304);
    }
  });

  it('a write on an instance moves its own clocks before its next plain read', async () => {
    const created = await http(a.url, 'POST', '/users', { body: { name: 'Local', email: 'local@example.org' } });
    const path = `/users/${created.json.id as string}`;
    const before = await http(a.url, 'GET', path);
    expect((await http(a.url, 'PATCH', path, { body: { bio: 'local change' } })).status).toBe(200);
    // A revalidation right after this instance's own write must not trust clocks read before it.
    const revalidated = await http(a.url, 'GET', path, { headers: { 'if-none-match': before.headers.get('etag') ?? '' } });
    expect(revalidated.status).toBe(200);
    expect(revalidated.json.bio).toBe('local change');
    expect((await http(a.url, 'GET', path, { headers: { 'if-none-match': revalidated.headers.get('etag') ?? '' } })).status).toBe(304);
  });
});
