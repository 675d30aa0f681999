/**
 * The cross-site write guard at the edge, over real sockets on both
 * databases: a form a page on another site makes the browser send (multipart,
 * urlencoded, text/plain, no preflight) is refused with 403 before anything
 * is stored, in REST and in GraphQL; the same request with a preflight header,
 * from an allowed origin, or from curl (no Origin) goes through; GraphQL
 * multipart keeps requiring its preflight header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { formOf, gqlMultipart, storedKeys } from '../support/uploads.js';

const CROSS_SITE = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
const ALLOWED = 'https://app.example';

describeEachDialect('cross-site writes', (ctx) => {
  let server: TestServer;
  let serial = 0;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1, pictures: 1 },
      server: { allowedOrigins: [ALLOWED] },
    });
  });
  afterAll(() => server.close());

  async function userForm(): Promise<{ form: FormData; email: string }> {
    serial += 1;
    const email = `form${serial}-${ctx.dialect}@example.com`;
    return { email, form: formOf({ name: `Form ${serial}`, email, profilePicture: { data: await png(400 + serial), filename: 'p.png', type: 'image/png' } }) };
  }

  async function users(): Promise<string> {
    const response = await http(server.url, 'GET', '/users?fields=id,email&limit=100');
    expect(response.status).toBe(200);
    return response.text;
  }

  function expectRefused(response: HttpResponse): void {
    expect(response.status, response.text).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.json).toMatchObject({ status: 403, code: 'CROSS_SITE_REQUEST_REFUSED', title: 'Cross-site request refused' });
  }

  describe('REST', () => {
    it('refuses a multipart create from another site with 403, creating and storing nothing', async () => {
      const before = { list: await users(), keys: storedKeys(server.filesDir as string) };
      const { form } = await userForm();
      expectRefused(await http(server.url, 'POST', '/users', { raw: form, headers: CROSS_SITE }));
      expect(await users()).toBe(before.list);
      expect(storedKeys(server.filesDir as string)).toEqual(before.keys);
    });

    it('creates it (201) when the same request carries a preflight header', async () => {
      const { form, email } = await userForm();
      const response = await http(server.url, 'POST', '/users', { raw: form, headers: { ...CROSS_SITE, 'graphql-require-preflight': '1' } });
      expect(response.status, response.text).toBe(201);
      expect(response.json.email).toBe(email);
      expect(await users()).toContain(email);
    });

    it('creates it (201) from curl: no Origin, no Sec-Fetch-Site, no preflight header', async () => {
      const { form, email } = await userForm();
      const response = await http(server.url, 'POST', '/users', { raw: form });
      expect(response.status, response.text).toBe(201);
      expect(response.json.profilePicture).toMatch(/^\/files\/[0-9a-f]{64}\.png$/);
      expect(await users()).toContain(email);
    });

    it('creates it (201) from this server\'s own pages and from an allowed origin', async () => {
      const own = new URL(server.url).origin;
      const cases: Record<string, string>[] = [
        { origin: own, 'sec-fetch-site': 'same-origin' },
        { origin: own },
        { origin: ALLOWED, 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of cases) {
        const { form, email } = await userForm();
        const response = await http(server.url, 'POST', '/users', { raw: form, headers });
        expect(response.status, JSON.stringify(headers)).toBe(201);
        expect(await users()).toContain(email);
      }
    });

    it('refuses a multipart file PUT and a urlencoded form from another site too, leaving the record as it was', async () => {
      const before = await http(server.url, 'GET', '/users/1');
      const put = new FormData();
      put.append('file', new Blob([new Uint8Array(await png(499))], { type: 'image/png' }), 'p.png');
      expectRefused(await http(server.url, 'PUT', '/users/1/profilePicture', { raw: put, headers: CROSS_SITE }));
      const urlencoded = await http(server.url, 'POST', '/users', {
        raw: 'name=Mallory&email=mallory@example.com',
        headers: { ...CROSS_SITE, 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectRefused(urlencoded);
      expect((await http(server.url, 'GET', '/users/1')).text).toBe(before.text);
    });

    it('leaves JSON writes alone: a browser preflights them, so they never arrive cross-site unasked', async () => {
      serial += 1;
      const response = await http(server.url, 'POST', '/users', { body: { name: 'Json', email: `json${serial}-${ctx.dialect}@example.com` }, headers: CROSS_SITE });
      expect(response.status).toBe(201);
    });
  });

  describe('GraphQL', () => {
    const mutation = 'mutation ($input: CreateUserInput!) { createUser(input: $input) { email } }';
    const upload = async (headers: Record<string, string>): Promise<{ response: HttpResponse; email: string }> => {
      serial += 1;
      const email = `gql${serial}-${ctx.dialect}@example.com`;
      const response = await gqlMultipart(
        server.url,
        mutation,
        { input: { name: 'Gql', email, profilePicture: null } },
        { 0: { path: 'variables.input.profilePicture', part: { data: await png(600 + serial), filename: 'g.png', type: 'image/png' } } },
        headers,
      );
      return { response, email };
    };

    it('multipart with the preflight header is unchanged: it runs, from anywhere', async () => {
      const cases: Record<string, string>[] = [{ 'graphql-require-preflight': '1' }, { ...CROSS_SITE, 'apollo-require-preflight': 'true' }];
      for (const headers of cases) {
        const { response, email } = await upload(headers);
        expect(response.status, response.text).toBe(200);
        expect(response.json.data.createUser.email).toBe(email);
      }
    });

    it('multipart without it is still 400 UPLOAD_PREFLIGHT_REQUIRED, even from curl', async () => {
      const before = await users();
      const { response } = await upload({});
      expect(response.status).toBe(400);
      expect(response.json.errors[0].extensions.code).toBe('UPLOAD_PREFLIGHT_REQUIRED');
      expect(await users()).toBe(before);
    });

    it('a form from another site is 403 CROSS_SITE_REQUEST_REFUSED in the GraphQL envelope, running nothing', async () => {
      const before = await users();
      const { response } = await upload(CROSS_SITE);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      expect(response.json.data).toBeUndefined();
      expect(response.json.errors[0].extensions.code).toBe('CROSS_SITE_REQUEST_REFUSED');
      const text = await http(server.url, 'POST', '/graphql', {
        raw: JSON.stringify({ query: 'mutation { createUser(input: { name: "Plain", email: "plain@example.com" }) { id } }' }),
        headers: { ...CROSS_SITE, 'content-type': 'text/plain;charset=UTF-8' },
      });
      expect(text.status).toBe(403);
      expect(text.json.errors[0].extensions.code).toBe('CROSS_SITE_REQUEST_REFUSED');
      expect(await users()).toBe(before);
    });
  });
});
