/**
 * What a write may change, over a real socket on both databases, in both
 * styles (issue 36, findings 7, 8b, 8d): the rules are decided before the
 * input is validated and before any file is received; PUT leaves the fields
 * the caller may not write as they are; an `@immutable` field is set once;
 * an image is capped by its pixels before it is decoded and charged by them.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { png, truncated } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { formOf, gqlMultipart, putFile, stagedFiles, storedKeys } from '../support/uploads.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'write-rights-secret-0123456789abcdef';
const ADMIN_KEY = 'write-rights-admin-key-0123456789';
/** A member's budget here: one 2-megapixel image (2,000 points) and a few writes, not two images. */
const MEMBER_POINTS = 3000;

describeEachDialect('write rights', (ctx) => {
  let server: TestServer;
  let users: { id: string; email: string }[];
  const tokens = new Map<string, string>();

  const sign = async (sub: string, role: string): Promise<string> => {
    const key = `${sub} ${role}`;
    let token = tokens.get(key);
    if (token === undefined) {
      token = await new SignJWT({ sub, role }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
      tokens.set(key, token);
    }
    return token;
  };
  const as = async (sub: string, role = 'MEMBER'): Promise<Record<string, string>> => ({ authorization: `Bearer ${await sign(sub, role)}` });
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const codeOf = (response: HttpResponse): string | undefined => response.json?.code ?? response.json?.errors?.[0]?.extensions?.code;
  const user = (index: number): { id: string; email: string } => users[index] as { id: string; email: string };
  const adminRead = async (path: string): Promise<Record<string, unknown>> => {
    const response = await http(server.url, 'GET', path, { headers: admin });
    expect(response.status, response.text).toBe(200);
    return response.json as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 12, Post: 10, Product: 2, Order: 2, OrderItem: 2 }, linksPerRecord: 1 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY }, rateLimits: { member: { points: MEMBER_POINTS, window: 3600 } } },
    });
    const listed = await http(server.url, 'GET', '/users?limit=12&fields=id,email', { headers: admin });
    users = listed.json.data as { id: string; email: string }[];
    expect(users.length).toBe(12);
  });
  afterAll(() => server.close());

  describe('PUT leaves the fields the caller may not write as they are (8b)', () => {
    it("a member's PUT of their own record keeps isVerified, and resets what they may write", async () => {
      const member = user(0);
      expect((await http(server.url, 'PATCH', `/users/${member.id}`, { headers: admin, body: { isVerified: true, bio: 'before' } })).status).toBe(200);
      const put = await http(server.url, 'PUT', `/users/${member.id}`, { headers: await as(member.id), body: { name: 'Put Member', email: member.email } });
      expect(put.status, put.text).toBe(200);
      const stored = await adminRead(`/users/${member.id}`);
      expect(stored).toMatchObject({ name: 'Put Member', isVerified: true, role: 'MEMBER', bio: null });
    });

    it("a moderator's PUT of their own record keeps their role", async () => {
      const moderator = user(1);
      expect((await http(server.url, 'PATCH', `/users/${moderator.id}`, { headers: admin, body: { role: 'MODERATOR' } })).status).toBe(200);
      const put = await http(server.url, 'PUT', `/users/${moderator.id}`, { headers: await as(moderator.id, 'MODERATOR'), body: { name: 'Put Moderator', email: moderator.email } });
      expect(put.status, put.text).toBe(200);
      expect(await adminRead(`/users/${moderator.id}`)).toMatchObject({ name: 'Put Moderator', role: 'MODERATOR' });
    });

    it("the admin's PUT, who may write every field, still resets them", async () => {
      const member = user(2);
      expect((await http(server.url, 'PATCH', `/users/${member.id}`, { headers: admin, body: { isVerified: true } })).status).toBe(200);
      const put = await http(server.url, 'PUT', `/users/${member.id}`, { headers: admin, body: { name: 'Admin Put', email: member.email } });
      expect(put.status, put.text).toBe(200);
      expect(await adminRead(`/users/${member.id}`)).toMatchObject({ isVerified: false });
    });
  });

  describe('@immutable: a post is never moved to another author (8d)', () => {
    let post: string;
    const author = (): { id: string; email: string } => user(3);
    const moderator = (): { id: string; email: string } => user(4);

    beforeAll(async () => {
      const created = await http(server.url, 'POST', '/posts', { headers: await as(author().id), body: { title: 'Mine', body: 'text' } });
      expect(created.status, created.text).toBe(201);
      post = created.json.id as string;
    });

    it('REST: a moderator PATCH of author is 409 INPUT_IMMUTABLE_FIELD and nothing changes; the same value passes', async () => {
      const moved = await http(server.url, 'PATCH', `/posts/${post}`, { headers: await as(moderator().id, 'MODERATOR'), body: { author: moderator().id, title: 'Moved' } });
      expect(moved.status, moved.text).toBe(409);
      expect(moved.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(codeOf(moved)).toBe('INPUT_IMMUTABLE_FIELD');
      expect(moved.json.errors).toEqual([expect.objectContaining({ pointer: '/author', code: 'INPUT_IMMUTABLE_FIELD' })]);
      expect(await adminRead(`/posts/${post}`)).toMatchObject({ author: author().id, title: 'Mine' });

      const same = await http(server.url, 'PATCH', `/posts/${post}`, { headers: await as(moderator().id, 'MODERATOR'), body: { author: author().id, title: 'Edited' } });
      expect(same.status, same.text).toBe(200);
      expect(same.json).toMatchObject({ author: author().id, title: 'Edited' });
    });

    it('the admin cannot move it either, and a PUT without author keeps it', async () => {
      const moved = await http(server.url, 'PATCH', `/posts/${post}`, { headers: admin, body: { author: moderator().id } });
      expect(moved.status, moved.text).toBe(409);
      expect(codeOf(moved)).toBe('INPUT_IMMUTABLE_FIELD');
      const put = await http(server.url, 'PUT', `/posts/${post}`, { headers: await as(author().id), body: { title: 'Replaced', body: 'new' } });
      expect(put.status, put.text).toBe(200);
      expect(await adminRead(`/posts/${post}`)).toMatchObject({ author: author().id, title: 'Replaced' });
    });

    it('GraphQL: updatePost with another author is INPUT_IMMUTABLE_FIELD', async () => {
      const response = await gql(
        server.url,
        'mutation ($id: ID!, $author: ID!) { updatePost(id: $id, input: { author: $author }) { id } }',
        { id: post, author: moderator().id },
        await as(moderator().id, 'MODERATOR'),
      );
      expect(response.json.errors?.[0]?.extensions?.code, response.text).toBe('INPUT_IMMUTABLE_FIELD');
      expect(await adminRead(`/posts/${post}`)).toMatchObject({ author: author().id });
    });
  });

  describe('rules before files (7a)', () => {
    it('REST: an anonymous multipart create of a post is refused before its (corrupt) cover is read', async () => {
      const before = storedKeys(server.filesDir as string);
      const response = await http(server.url, 'POST', '/posts', {
        raw: formOf({ title: 'Anon', body: 'x', cover: { data: truncated(await png(71)), filename: 'c.png', type: 'image/png' } }),
      });
      // Had the file been received first, its check would answer 400 FILE_CORRUPT.
      expect(response.status, response.text).toBe(403);
      expect(codeOf(response)).toBe('FORBIDDEN');
      expect(storedKeys(server.filesDir as string)).toEqual(before);
      expect(stagedFiles(server.filesDir as string)).toEqual([]);
    });

    it("REST: an anonymous PUT of someone's picture is refused before the file is read", async () => {
      const response = await putFile(server.url, `/users/${user(5).id}/profilePicture`, truncated(await png(72)));
      expect(response.status, response.text).toBe(403);
      expect(codeOf(response)).toBe('FORBIDDEN');
    });

    it("REST: a member's PUT of someone else's picture, or of their record as a form, is refused before the file is read", async () => {
      const stranger = await as(user(8).id);
      const picture = await putFile(server.url, `/users/${user(5).id}/profilePicture`, truncated(await png(79)), 'c.png', 'image/png', stranger);
      expect(picture.status, picture.text).toBe(403);
      expect(codeOf(picture)).toBe('FORBIDDEN');
      const form = await http(server.url, 'PUT', `/users/${user(5).id}`, {
        headers: stranger,
        raw: formOf({ name: 'Taken', email: user(5).email, profilePicture: { data: truncated(await png(80)), filename: 'c.png', type: 'image/png' } }),
      });
      expect(form.status, form.text).toBe(403);
      expect(codeOf(form)).toBe('FORBIDDEN');
      expect(stagedFiles(server.filesDir as string)).toEqual([]);
    });

    it('REST JSON: the rules come before the input is validated', async () => {
      const response = await http(server.url, 'POST', '/posts', { body: { title: 42, nonsense: true } });
      expect(response.status, response.text).toBe(403);
      expect(codeOf(response)).toBe('FORBIDDEN');
    });

    it('GraphQL: an anonymous createPost with a file is refused before the file is read', async () => {
      const response = await gqlMultipart(
        server.url,
        'mutation ($input: CreatePostInput!) { createPost(input: $input) { id } }',
        { input: { title: 'Anon', body: 'x', cover: null } },
        { 0: { path: 'variables.input.cover', part: { data: truncated(await png(73)), filename: 'c.png', type: 'image/png' } } },
      );
      expect(codeOf(response), response.text).toBe('FORBIDDEN');
      expect(response.status).toBe(403);
      expect(stagedFiles(server.filesDir as string)).toEqual([]);
    });

    it("GraphQL: a member's updateUser of someone else's picture is refused before the file is read, as in REST", async () => {
      const before = storedKeys(server.filesDir as string);
      const response = await gqlMultipart(
        server.url,
        'mutation ($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }',
        { id: user(5).id, input: { profilePicture: null } },
        { 0: { path: 'variables.input.profilePicture', part: { data: truncated(await png(81)), filename: 'c.png', type: 'image/png' } } },
        { 'graphql-require-preflight': '1', ...(await as(user(8).id)) },
      );
      // Had the file been received first, its check would answer FILE_CORRUPT.
      expect(codeOf(response), response.text).toBe('FORBIDDEN');
      expect(storedKeys(server.filesDir as string)).toEqual(before);
      expect(stagedFiles(server.filesDir as string)).toEqual([]);
    });

    it('GraphQL: the rules come before the input is validated', async () => {
      // An id longer than any id is VALIDATION_FAILED to a caller who may create posts.
      const response = await gql(server.url, `mutation { createPost(input: { title: "t", body: "b", author: "${'x'.repeat(100)}" }) { id } }`);
      expect(response.json.errors?.[0]?.extensions?.code, response.text).toBe('FORBIDDEN');
    });
  });

  describe('image pixels: capped before decoding, charged by the pixel (7b, 7c)', () => {
    let huge: Buffer;
    beforeAll(async () => {
      // The red team's picture: 6300 × 6300 (39.7 megapixels) in a small PNG.
      huge = await png(74, 6300, 6300);
    });

    it('REST: an anonymous create with a 40-megapixel picture is 400 FILE_TOO_MANY_PIXELS, and nothing is kept', async () => {
      const before = storedKeys(server.filesDir as string);
      const email = `huge-rest-${ctx.dialect}@example.com`;
      const response = await http(server.url, 'POST', '/users', {
        raw: formOf({ name: 'Huge', email, profilePicture: { data: huge, filename: 'huge.png', type: 'image/png' } }),
      });
      expect(response.status, response.text).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(codeOf(response)).toBe('FILE_TOO_MANY_PIXELS');
      expect(response.json.maxPixels).toBe(25_000_000);
      expect(storedKeys(server.filesDir as string)).toEqual(before);
      const found = await http(server.url, 'GET', `/users?filter[email]=${encodeURIComponent(email)}`, { headers: admin });
      expect(found.json.data).toEqual([]);
    });

    it('GraphQL: the same picture in createUser is FILE_TOO_MANY_PIXELS', async () => {
      const response = await gqlMultipart(
        server.url,
        'mutation ($input: CreateUserInput!) { createUser(input: $input) { id } }',
        { input: { name: 'Huge', email: `huge-gql-${ctx.dialect}@example.com`, profilePicture: null } },
        { 0: { path: 'variables.input.profilePicture', part: { data: huge, filename: 'huge.png', type: 'image/png' } } },
      );
      expect(codeOf(response), response.text).toBe('FILE_TOO_MANY_PIXELS');
    });

    it("REST: a 2-megapixel picture costs 2,000 points, so a second one exceeds a member's 3,000", async () => {
      const member = user(6);
      const picture = await png(75, 2000, 1000);
      const first = await putFile(server.url, `/users/${member.id}/profilePicture`, picture, 'p.png', 'image/png', await as(member.id));
      expect(first.status, first.text).toBe(200);
      const second = await putFile(server.url, `/users/${member.id}/profilePicture`, await png(76, 2000, 1000), 'p.png', 'image/png', await as(member.id));
      expect(second.status, second.text).toBe(429);
      expect(codeOf(second)).toBe('RATE_LIMITED');
      expect(await adminRead(`/users/${member.id}?fields=profilePicture`)).toEqual(first.json.profilePicture === undefined ? {} : { profilePicture: first.json.profilePicture });
    });

    it('GraphQL: the same charge over the multipart request spec', async () => {
      const member = user(7);
      const send = async (seed: number): Promise<HttpResponse> =>
        gqlMultipart(
          server.url,
          'mutation ($id: ID!, $file: Upload!) { updateUser(id: $id, input: { profilePicture: $file }) { id } }',
          { id: member.id, file: null },
          { 0: { path: 'variables.file', part: { data: await png(seed, 2000, 1000), filename: 'p.png', type: 'image/png' } } },
          { 'graphql-require-preflight': '1', ...(await as(member.id)) },
        );
      const first = await send(77);
      expect(first.json.errors, first.text).toBeUndefined();
      const second = await send(78);
      expect(codeOf(second), second.text).toBe('RATE_LIMITED');
    });
  });
});
