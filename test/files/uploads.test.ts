/**
 * Every way a file arrives — REST PUT of one file, REST multipart create and
 * replace, the GraphQL multipart request spec — and every kind of bad file,
 * over real sockets on both databases. A good upload's URL must serve an
 * image exactly 64 px wide with immutable caching; a bad one must be refused
 * with a 4xx and its code, leave nothing behind, and leave the last good
 * picture serving.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { avif, dimensions, gif, jpeg, pixelBomb, png, SVG, TEXT, truncated, webp } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { filesUnder, formOf, gqlMultipart, keyOf, putFile, stagedFiles, storedKeys } from '../support/uploads.js';

const MAX_UPLOAD = 256 * 1024;
const IMMUTABLE = 'public, max-age=31536000, immutable';

describeEachDialect('file uploads', (ctx) => {
  let server: TestServer;
  let dir: string;
  let serial = 0;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { files: { maxUploadBytes: MAX_UPLOAD }, seed: { counts: { User: 10, Post: 10, Product: 3, Order: 2, OrderItem: 2 }, linksPerRecord: 1, pictures: 3 } });
    dir = server.filesDir as string;
  });
  afterAll(() => server.close());

  async function newUser(): Promise<string> {
    serial += 1;
    const response = await http(server.url, 'POST', '/users', { body: { name: `Uploader ${serial}`, email: `uploader${serial}-${ctx.dialect}@example.com` } });
    expect(response.status).toBe(201);
    return response.json.id as string;
  }

  /** Fetches `url` and checks it is an image exactly `width` px wide with immutable caching headers. */
  async function expectVariant(url: string, width: number, accept = 'image/webp,*/*'): Promise<Buffer> {
    const response = await fetch(`${server.url}${url}`, { headers: { accept } });
    expect(response.status, url).toBe(200);
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('content-type')).toMatch(/^image\//);
    const body = Buffer.from(await response.arrayBuffer());
    expect((await dimensions(body)).width).toBe(width);
    return body;
  }

  async function pictureOf(id: string, size?: number): Promise<string | null> {
    const query = size === undefined ? 'fields=profilePicture' : `fields=profilePicture&profilePicture.size=${size}`;
    const response = await http(server.url, 'GET', `/users/${id}?${query}`);
    expect(response.status).toBe(200);
    return response.json.profilePicture as string | null;
  }

  describe('REST', () => {
    it('PUT /users/<id>/profilePicture stores the file and the record serves its 64 px variant', async () => {
      const id = await newUser();
      const response = await putFile(server.url, `/users/${id}/profilePicture`, await png(1));
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toMatch(/^"/);
      expect(response.json.id).toBe(id);
      expect(response.json.profilePicture).toMatch(/^\/files\/[0-9a-f]{64}\.png$/);
      expect(storedKeys(dir)).toContain(keyOf(response.json.profilePicture as string));

      const url = await pictureOf(id, 64);
      expect(url).toBe(`${response.json.profilePicture as string}/64`);
      await expectVariant(url as string, 64);
      // The original, as uploaded, with the same caching.
      const original = await fetch(`${server.url}${response.json.profilePicture as string}`);
      expect(original.status).toBe(200);
      expect(original.headers.get('content-type')).toBe('image/png');
      expect(original.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(Buffer.from(await original.arrayBuffer()).equals(await png(1))).toBe(true);
    });

    it('POST /users as multipart creates the record with its fields and its picture in one request', async () => {
      serial += 1;
      const form = formOf({
        name: 'Grace Form',
        email: `grace${serial}-${ctx.dialect}@example.com`,
        isPrivate: 'true',
        birthday: '1906-12-09T00:00:00Z',
        interests: ['cobol', 'compilers'],
        profilePicture: { data: await jpeg(2), filename: 'grace.jpg', type: 'image/jpeg' },
      });
      const response = await http(server.url, 'POST', '/users', { raw: form });
      expect(response.status, response.text).toBe(201);
      expect(response.headers.get('location')).toBe(`/users/${response.json.id as string}`);
      expect(response.json).toMatchObject({ name: 'Grace Form', isPrivate: true, birthday: '1906-12-09T00:00:00.000Z', interests: ['cobol', 'compilers'] });
      expect(response.json.profilePicture).toMatch(/^\/files\/[0-9a-f]{64}\.jpg$/);
      await expectVariant((await pictureOf(response.json.id as string, 64)) as string, 64);
    });

    it('PUT /users/<id> as multipart replaces the record, picture included', async () => {
      const id = await newUser();
      const form = formOf({ name: 'Replaced', email: `replaced${serial}-${ctx.dialect}@example.com`, profilePicture: { data: await webp(3), filename: 'r.webp', type: 'image/webp' } });
      const response = await http(server.url, 'PUT', `/users/${id}`, { raw: form });
      expect(response.status, response.text).toBe(200);
      expect(response.json).toMatchObject({ id, name: 'Replaced' });
      expect(response.json.profilePicture).toMatch(/\.webp$/);
      await expectVariant((await pictureOf(id, 64)) as string, 64);
    });

    it('refuses a bad form with the same codes as JSON, and keeps no file from it', async () => {
      const before = storedKeys(dir);
      const form = formOf({ name: 'No Email', age: '3', profilePicture: { data: await png(4), filename: 'p.png', type: 'image/png' } });
      const response = await http(server.url, 'POST', '/users', { raw: form });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.json.code).toBe('VALIDATION_FAILED');
      expect(response.json.errors.map((error: { pointer: string; code: string }) => `${error.pointer} ${error.code}`).sort()).toEqual([
        '/age INPUT_UNKNOWN_FIELD',
        '/email INPUT_REQUIRED_FIELD',
      ]);
      // The picture was stored before the record was refused: it is gone again.
      expect(storedKeys(dir)).toEqual(before);
      expect(stagedFiles(dir)).toEqual([]);
    });

    it('PATCH stays JSON; a file part for a field that is not a file is refused', async () => {
      const id = await newUser();
      const patch = await http(server.url, 'PATCH', `/users/${id}`, { raw: formOf({ name: 'x' }) });
      expect(patch.status).toBe(415);
      const wrong = await http(server.url, 'POST', '/users', { raw: formOf({ name: 'x', email: 'x@example.com', bio: { data: await png(5), filename: 'b.png', type: 'image/png' } }) });
      expect(wrong.status).toBe(400);
      expect(wrong.json.code).toBe('INPUT_WRONG_TYPE');
    });

    it('DELETE /users/<id>/profilePicture removes it: 204, the field is null, the file is gone', async () => {
      const id = await newUser();
      const uploaded = await putFile(server.url, `/users/${id}/profilePicture`, await png(6));
      const key = keyOf(uploaded.json.profilePicture as string);
      const removed = await http(server.url, 'DELETE', `/users/${id}/profilePicture`);
      expect(removed.status).toBe(204);
      expect(await pictureOf(id)).toBeNull();
      expect(storedKeys(dir)).not.toContain(key);
      expect((await http(server.url, 'GET', `/files/${key}`)).status).toBe(404);
    });
  });

  describe('GraphQL multipart request spec', () => {
    it('updateUser(id, input: { profilePicture: $file }) stores the file; profilePicture(size: 64) serves 64 px', async () => {
      const id = await newUser();
      const response = await gqlMultipart(
        server.url,
        'mutation ($id: ID!, $file: Upload!) { updateUser(id: $id, input: { profilePicture: $file }) { id profilePicture(size: 64) } }',
        { id, file: null },
        { 0: { path: 'variables.file', part: { data: await png(7), filename: 'g.png', type: 'image/png' } } },
      );
      expect(response.status, response.text).toBe(200);
      expect(response.json.errors).toBeUndefined();
      const url = response.json.data.updateUser.profilePicture as string;
      expect(url).toMatch(/^\/files\/[0-9a-f]{64}\.png\/64$/);
      await expectVariant(url, 64);
      expect(await pictureOf(id, 64)).toBe(url);
    });

    it('createUser with an Upload inside the input variable', async () => {
      serial += 1;
      const response = await gqlMultipart(
        server.url,
        'mutation ($input: CreateUserInput!) { createUser(input: $input) { name profilePicture(size: 32) } }',
        { input: { name: 'Gql Upload', email: `gql${serial}-${ctx.dialect}@example.com`, profilePicture: null } },
        { picture: { path: 'variables.input.profilePicture', part: { data: await gif(8), filename: 'g.gif', type: 'image/gif' } } },
      );
      expect(response.status, response.text).toBe(200);
      expect(response.json.data.createUser.name).toBe('Gql Upload');
      await expectVariant(response.json.data.createUser.profilePicture as string, 32);
    });

    it('refuses a multipart request without a preflight header (CSRF), storing nothing', async () => {
      const before = storedKeys(dir);
      const response = await gqlMultipart(
        server.url,
        'mutation ($file: Upload!) { updateUser(id: "1", input: { profilePicture: $file }) { id } }',
        { file: null },
        { 0: { path: 'variables.file', part: { data: await png(9), filename: 'c.png', type: 'image/png' } } },
        {},
      );
      expect(response.status).toBe(400);
      expect(response.json.errors[0].extensions.code).toBe('UPLOAD_PREFLIGHT_REQUIRED');
      expect(storedKeys(dir)).toEqual(before);
    });

    it('refuses bad files with the codes REST uses, in errors[].extensions.code', async () => {
      const id = await newUser();
      const cases: [Buffer, number, string][] = [
        [TEXT, 415, 'FILE_TYPE_NOT_ALLOWED'],
        [SVG, 415, 'FILE_TYPE_NOT_ALLOWED'],
        [truncated(await png(10)), 400, 'FILE_CORRUPT'],
        [pixelBomb(), 400, 'FILE_TOO_MANY_PIXELS'],
        [Buffer.alloc(MAX_UPLOAD + 1024, 1), 413, 'FILE_TOO_LARGE'],
      ];
      for (const [data, status, code] of cases) {
        const response = await gqlMultipart(
          server.url,
          'mutation ($id: ID!, $file: Upload!) { updateUser(id: $id, input: { profilePicture: $file }) { id } }',
          { id, file: null },
          { 0: { path: 'variables.file', part: { data, filename: 'x.png', type: 'image/png' } } },
        );
        expect(response.status, code).toBe(status);
        expect(response.json.errors[0].extensions.code).toBe(code);
      }
      expect(await pictureOf(id)).toBeNull();
      expect(stagedFiles(dir)).toEqual([]);
    });

    it('an Upload is only a file part: a string in its place is INPUT_WRONG_TYPE', async () => {
      const id = await newUser();
      const response = await http(server.url, 'POST', '/graphql', {
        body: { query: 'mutation ($id: ID!) { updateUser(id: $id, input: { profilePicture: "abc.png" }) { id } }', variables: { id } },
      });
      expect(response.json.errors[0].extensions.code).toBe('INPUT_WRONG_TYPE');
      const viaVariable = await http(server.url, 'POST', '/graphql', {
        body: { query: 'mutation ($id: ID!, $f: Upload) { updateUser(id: $id, input: { profilePicture: $f }) { id } }', variables: { id, f: `${'a'.repeat(64)}.png` } },
      });
      expect(viaVariable.json.errors[0].extensions.code).toBe('INPUT_WRONG_TYPE');
      expect(await pictureOf(id)).toBeNull();
    });

    it('a malformed multipart request is a 400: map paths must exist and every mapped file must come', async () => {
      const query = 'mutation ($file: Upload!) { updateUser(id: "1", input: { profilePicture: $file }) { id } }';
      const badPath = await gqlMultipart(server.url, query, { file: null }, { 0: { path: 'variables.nope', part: { data: await png(11), type: 'image/png' } } });
      expect(badPath.status).toBe(400);
      expect(badPath.json.errors[0].extensions.code).toBe('BAD_REQUEST');
      const form = new FormData();
      form.append('operations', JSON.stringify({ query, variables: { file: null } }));
      form.append('map', JSON.stringify({ 0: ['variables.file'] }));
      const missing = await http(server.url, 'POST', '/graphql', { raw: form, headers: { 'graphql-require-preflight': '1' } });
      expect(missing.status).toBe(400);
      expect(missing.json.errors[0].message).toMatch(/not sent: 0/);
    });
  });

  describe('bad files, over REST', () => {
    let id: string;
    let goodUrl: string;
    let goodVariant: Buffer;

    beforeAll(async () => {
      id = await newUser();
      const uploaded = await putFile(server.url, `/users/${id}/profilePicture`, await png(20));
      goodUrl = uploaded.json.profilePicture as string;
      goodVariant = await expectVariant(`${goodUrl}/64`, 64);
    });

    /** After a refused upload: nothing new stored, nothing staged, and the last good picture still in the record and serving. */
    async function expectNothingChanged(keys: readonly string[]): Promise<void> {
      expect(storedKeys(dir)).toEqual(keys);
      expect(stagedFiles(dir)).toEqual([]);
      expect(await pictureOf(id)).toBe(goodUrl);
      expect((await expectVariant(`${goodUrl}/64`, 64)).equals(goodVariant)).toBe(true);
    }

    const refusals: [string, () => Promise<Buffer> | Buffer, string, string, number, string][] = [
      ['an oversized file', () => Buffer.alloc(MAX_UPLOAD + 1, 7), 'big.png', 'image/png', 413, 'FILE_TOO_LARGE'],
      ['a much larger file', () => Buffer.alloc(4 * MAX_UPLOAD, 7), 'huge.png', 'image/png', 413, 'FILE_TOO_LARGE'],
      ['a text file named .png', () => TEXT, 'passwd.png', 'image/png', 415, 'FILE_TYPE_NOT_ALLOWED'],
      ['an SVG', () => SVG, 'logo.svg', 'image/svg+xml', 415, 'FILE_TYPE_NOT_ALLOWED'],
      ['an SVG named .png', () => SVG, 'logo.png', 'image/png', 415, 'FILE_TYPE_NOT_ALLOWED'],
      ['an empty file', () => Buffer.alloc(0), 'empty.png', 'image/png', 400, 'FILE_CORRUPT'],
      ['a truncated PNG', async () => truncated(await png(21)), 'cut.png', 'image/png', 400, 'FILE_CORRUPT'],
      ['a truncated JPEG', async () => truncated(await jpeg(22)), 'cut.jpg', 'image/jpeg', 400, 'FILE_CORRUPT'],
      ['a pixel bomb (a PNG header claiming 30000 × 30000)', () => pixelBomb(), 'bomb.png', 'image/png', 400, 'FILE_TOO_MANY_PIXELS'],
    ];
    for (const [what, make, filename, type, status, code] of refusals) {
      it(`refuses ${what}: ${status} ${code}`, async () => {
        const keys = storedKeys(dir);
        const response = await putFile(server.url, `/users/${id}/profilePicture`, await make(), filename, type);
        expect(response.status).toBe(status);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(response.json).toMatchObject({ status, code });
        await expectNothingChanged(keys);
      });
    }

    it('accepts a PNG named .jpg and declared image/jpeg: judged by content, stored as .png', async () => {
      const other = await newUser();
      const response = await putFile(server.url, `/users/${other}/profilePicture`, await png(23), 'photo.jpg', 'image/jpeg');
      expect(response.status).toBe(200);
      expect(response.json.profilePicture).toMatch(/\.png$/);
      const original = await fetch(`${server.url}${response.json.profilePicture as string}`);
      expect(original.headers.get('content-type')).toBe('image/png');
    });

    it('accepts every allowed format: JPEG, PNG, WebP, AVIF, GIF', async () => {
      const other = await newUser();
      for (const [make, extension] of [[jpeg, 'jpg'], [png, 'png'], [webp, 'webp'], [avif, 'avif'], [gif, 'gif']] as const) {
        const response = await putFile(server.url, `/users/${other}/profilePicture`, await make(24), 'x.bin', 'application/octet-stream');
        expect(response.status, extension).toBe(200);
        expect(response.json.profilePicture).toMatch(new RegExp(`\\.${extension}$`));
        await expectVariant(`${response.json.profilePicture as string}/128`, 128, '*/*');
      }
    });

    it('never uses the filename as a path: ../../etc/passwd is stored by content address, inside the store', async () => {
      const other = await newUser();
      const parent = dirname(dir);
      const siblings = readdirSync(parent).sort();
      const image = await png(25);
      const response = await putFile(server.url, `/users/${other}/profilePicture`, image, '../../etc/passwd', 'image/png');
      expect(response.status).toBe(200);
      const key = keyOf(response.json.profilePicture as string);
      expect(filesUnder(dir)).toContain(join('originals', key.slice(0, 2), key));
      expect(filesUnder(dir).filter((path) => path.includes('passwd') || path.includes('..'))).toEqual([]);
      expect(readdirSync(parent).sort()).toEqual(siblings);
    });

    it('refuses a form without a file part, a second part, and a non-multipart body', async () => {
      const keys = storedKeys(dir);
      const missing = await http(server.url, 'PUT', `/users/${id}/profilePicture`, { raw: formOf({ note: 'hello' }) });
      expect(missing.status).toBe(400);
      expect(missing.json.code).toBe('BAD_REQUEST');
      const empty = await http(server.url, 'PUT', `/users/${id}/profilePicture`, { raw: new FormData() });
      expect(empty.json.code).toBe('FILE_MISSING');
      const json = await http(server.url, 'PUT', `/users/${id}/profilePicture`, { body: { file: 'x' } });
      expect(json.status).toBe(415);
      expect(json.json.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      await expectNothingChanged(keys);
    });

    it('answers 404 for an upload to a record that does not exist, and keeps nothing', async () => {
      const keys = storedKeys(dir);
      const response = await putFile(server.url, '/users/no-such-user/profilePicture', await png(26));
      expect(response.status).toBe(404);
      await expectNothingChanged(keys);
    });
  });
});
