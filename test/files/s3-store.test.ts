/**
 * Files in S3-compatible object storage, against a real S3 server started by
 * the tests (@20minutes/s3rver in a child process: test/support/s3-server.ts):
 * uploads through REST and GraphQL land in the bucket (large ones as
 * multipart uploads), originals stream back with the local store's headers
 * or redirect to a presigned URL after the access check, variants are made
 * once even when two instances ask at once, a file is deleted only when no
 * record of any instance refers to it, and a store that does not answer is
 * 503 FILE_STORE_UNAVAILABLE.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindFiles } from '../../src/engine/engine-files.js';
import { createFileService, type FileService } from '../../src/files/file-service.js';
import type { ReleaseMarks } from '../../src/files/file-store.js';
import type { ResourceType } from '../../src/schema/model.js';
import { planUpdate } from '../../src/plan/build-write.js';
import { validateInput } from '../../src/plan/validate-input.js';
import { ANONYMOUS } from '../../src/plan/principal.js';
import { describeEachDialect, describePostgres } from '../support/databases.js';
import { testContext } from '../support/contexts.js';
import { http } from '../support/http.js';
import { dimensions, png } from '../support/images.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gqlMultipart, putFile } from '../support/uploads.js';
import type { SeedOptions } from '../../src/engine/engine.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const SEED: SeedOptions = { counts: { User: 6, Post: 4, Product: 2, Order: 2, OrderItem: 2 }, linksPerRecord: 1 };
const MIB = 1024 * 1024;

function filesOf(server: TestServer): FileService {
  if (server.files === undefined) throw new Error('this server has no files');
  return server.files;
}

function marksOf(server: TestServer): ReleaseMarks {
  const marks = filesOf(server).store.releases;
  if (marks === undefined) throw new Error('this store keeps no release marks');
  return marks;
}

function userType(server: TestServer): ResourceType {
  const type = server.model.types.find((candidate) => candidate.name === 'User');
  if (type === undefined) throw new Error('the example has no User');
  return type;
}

async function fetchBody(url: string, init: RequestInit = {}): Promise<{ response: Response; body: Buffer }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { response, body: Buffer.from(await response.arrayBuffer()) };
}

describeEachDialect('files in S3-compatible storage', (ctx) => {
  let s3: S3TestServer;
  let server: TestServer;
  let redirecting: TestServer;
  const prefix = `run-${randomUUID()}/`;

  beforeAll(async () => {
    s3 = await startS3Server();
    server = await startServer(() => ctx.open(), { seed: SEED, files: { store: s3.store(prefix, { partSize: 5 * MIB }), maxUploadBytes: 16 * MIB, releaseDelayMs: 0 } });
    redirecting = await startServer(() => ctx.open(), {
      seed: false,
      files: { store: s3.store(prefix), releaseDelayMs: 3_600_000 },
      server: { fileServe: 'redirect', fileAccess: 'readers' },
    });
  });
  afterAll(async () => {
    await redirecting.close();
    await server.close();
    await s3.stop();
  });

  async function upload(path: string, image: Buffer): Promise<string> {
    const response = await putFile(server.url, path, image);
    expect(response.status, response.text).toBe(200);
    return (response.json.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
  }

  it('stores a REST upload in the bucket and streams it back with the headers of the local store', async () => {
    const image = await png(101);
    const key = await upload('/users/2/profilePicture', image);
    expect(s3.count('PUT', `${prefix}originals/${key}`)).toBe(1);
    const { response, body } = await fetchBody(`${server.url}/files/${key}`);
    expect(response.status).toBe(200);
    expect(body.equals(image)).toBe(true);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(image.length));
    expect(response.headers.get('etag')).toBe(`"${key.slice(0, 64)}"`);
    expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="${key}"`);

    // A revalidation and a HEAD never fetch the object's bytes from the store.
    const gets = s3.count('GET', `${prefix}originals/${key}`);
    expect((await fetchBody(`${server.url}/files/${key}`, { headers: { 'if-none-match': `"${key.slice(0, 64)}"` } })).response.status).toBe(304);
    const head = await fetch(`${server.url}/files/${key}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(image.length));
    expect(s3.count('GET', `${prefix}originals/${key}`)).toBe(gets);
  });

  it('stores a GraphQL multipart upload in the bucket', async () => {
    const image = await png(102);
    const response = await gqlMultipart(
      server.url,
      'mutation ($file: Upload!) { updateUser(id: "3", input: { profilePicture: $file }) { profilePicture } }',
      { file: null },
      { 0: { path: 'variables.file', part: { data: image, filename: 'g.png', type: 'image/png' } } },
    );
    expect(response.status, response.text).toBe(200);
    const key = (response.json.data.updateUser.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
    expect(s3.count('PUT', `${prefix}originals/${key}`)).toBe(1);
    expect((await fetchBody(`${server.url}/files/${key}`)).body.equals(image)).toBe(true);
  });

  it('stores a resized variant beside the original, once, and serves it from there', async () => {
    const key = await upload('/users/4/profilePicture', await png(103));
    const name = `${prefix}variants/${key}/64.webp`;
    for (let round = 0; round < 2; round++) {
      const { response, body } = await fetchBody(`${server.url}/files/${key}/64`, { headers: { accept: 'image/webp' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/webp');
      expect((await dimensions(body)).width).toBe(64);
    }
    expect(s3.count('PUT', name)).toBe(1);
  });

  it('sends a large file up in parts, never whole', async () => {
    // Noise does not compress: about 6.2 MiB of PNG, over the 5 MiB part size.
    const noise = Buffer.alloc(1500 * 1450 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const image = await sharp(noise, { raw: { width: 1500, height: 1450, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    expect(image.length).toBeGreaterThan(5 * MIB);
    const key = await upload('/users/5/profilePicture', image);
    const name = `${prefix}originals/${key}`;
    expect(s3.count('POST', name)).toBe(2); // CreateMultipartUpload, CompleteMultipartUpload
    expect(s3.requests.filter((request) => request.method === 'PUT' && request.url.startsWith(`/${s3.bucket}/${name}?`) && request.url.includes('partNumber=')).length).toBe(2);
    const { body } = await fetchBody(`${server.url}/files/${key}`);
    expect(body.equals(image)).toBe(true);
  });

  it('answers 404 for a key with no object, original or variant', async () => {
    const absent = `${'ab'.repeat(32)}.png`;
    for (const path of [`/files/${absent}`, `/files/${absent}/64`]) {
      const response = await http(server.url, 'GET', path);
      expect(response.status, path).toBe(404);
      expect(response.json.code).toBe('NOT_FOUND');
    }
  });

  it('keeps a file while another record refers to it, and deletes it and its variants when the last one lets go', async () => {
    const image = await png(104);
    const key = await upload('/users/2/profilePicture', image);
    expect(await upload('/users/6/profilePicture', image)).toBe(key);
    expect((await fetchBody(`${server.url}/files/${key}/32`)).response.status).toBe(200);
    const store = filesOf(server).store;

    expect((await http(server.url, 'DELETE', '/users/2/profilePicture')).status).toBe(204);
    await filesOf(server).sweep();
    expect(await store.exists(key)).toBe(true);
    expect((await fetchBody(`${server.url}/files/${key}`)).body.equals(image)).toBe(true);

    expect((await http(server.url, 'DELETE', '/users/6/profilePicture')).status).toBe(204);
    // This server sweeps every second on its own too: whichever sweep comes first deletes it.
    await filesOf(server).sweep();
    expect(await store.exists(key)).toBe(false);
    expect(s3.count('DELETE', `${prefix}variants/${key}/32.png`)).toBe(1);
    expect((await http(server.url, 'GET', `/files/${key}`)).status).toBe(404);
  });

  describe('redirects to a presigned URL', () => {
    it('redirects a reader to a short-lived URL of the object, with our type and name', async () => {
      const image = await png(105);
      const key = await upload('/users/3/profilePicture', image);
      const redirect = await fetchBody(`${redirecting.url}/files/${key}`);
      expect(redirect.response.status).toBe(302);
      expect(redirect.response.headers.get('cache-control')).toBe('private, no-store');
      const location = redirect.response.headers.get('location') ?? '';
      expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/${prefix}originals/${key}?`)).toBe(true);
      expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');
      const { response, body } = await fetchBody(location);
      expect(response.status).toBe(200);
      expect(body.equals(image)).toBe(true);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.headers.get('content-disposition')).toBe(`inline; filename="${key}"`);
    });

    it('checks who may read before it redirects: a stored file no record holds is a 404, not a URL', async () => {
      const key = await filesOf(server).putGenerated(await png(106), 'png');
      filesOf(server).unpin(key);
      expect(await filesOf(server).store.exists(key)).toBe(true);
      const response = await fetchBody(`${redirecting.url}/files/${key}`);
      expect(response.response.status).toBe(404);
      expect(response.response.headers.get('location')).toBeNull();
    });
  });
});

describeEachDialect('files in S3-compatible storage that stops answering', (ctx) => {
  let s3: S3TestServer;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    s3 = await startS3Server();
    server = await startServer(() => ctx.open(), { seed: SEED, files: { store: s3.store() } });
    const response = await putFile(server.url, '/users/1/profilePicture', await png(201));
    expect(response.status, response.text).toBe(200);
    key = (response.json.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
    await s3.stop();
  });
  afterAll(async () => {
    await server.close();
    await s3.stop();
  });

  it('answers 503 FILE_STORE_UNAVAILABLE with Retry-After, never 500, to reads and to uploads in both styles', async () => {
    for (const path of [`/files/${key}`, `/files/${key}/64`]) {
      const response = await http(server.url, 'GET', path);
      expect(response.status, path).toBe(503);
      expect(response.json.code, path).toBe('FILE_STORE_UNAVAILABLE');
      expect(response.headers.get('retry-after'), path).toBe('5');
    }
    const rest = await putFile(server.url, '/users/1/profilePicture', await png(202));
    expect(rest.status, rest.text).toBe(503);
    expect(rest.json.code).toBe('FILE_STORE_UNAVAILABLE');
    const graphql = await gqlMultipart(
      server.url,
      'mutation ($file: Upload!) { updateUser(id: "1", input: { profilePicture: $file }) { id } }',
      { file: null },
      { 0: { path: 'variables.file', part: { data: await png(203), filename: 'g.png', type: 'image/png' } } },
    );
    expect(graphql.json.errors?.[0]?.extensions?.code, graphql.text).toBe('FILE_STORE_UNAVAILABLE');
  });
});

describePostgres('files in S3-compatible storage shared by two instances', (ctx) => {
  let s3: S3TestServer;
  let a: TestServer;
  let b: TestServer;
  const prefix = `shared-${randomUUID()}/`;

  beforeAll(async () => {
    s3 = await startS3Server();
    // Both wait an hour before deleting a released file: the sweeps below that should delete run on a third service with no wait.
    a = await startServer(() => ctx.open(), { seed: SEED, files: { store: s3.store(prefix), releaseDelayMs: 3_600_000 } });
    b = await startServer(() => ctx.open(), { seed: false, files: { store: s3.store(prefix), releaseDelayMs: 3_600_000 } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    await s3.stop();
  });

  it('renders a variant once when both instances are asked for it at once', async () => {
    const response = await putFile(a.url, '/users/2/profilePicture', await png(301));
    const key = (response.json.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
    const before = filesOf(a).stats.resizes + filesOf(b).stats.resizes;
    const answers = await Promise.all(
      [a, b, a, b, a, b].map((server) => fetchBody(`${server.url}/files/${key}/128`, { headers: { accept: 'image/webp' } })),
    );
    for (const { response: answer } of answers) expect(answer.status).toBe(200);
    expect(new Set(answers.map(({ body }) => body.toString('base64'))).size).toBe(1);
    expect(filesOf(a).stats.resizes + filesOf(b).stats.resizes - before).toBe(1);
    expect(s3.count('PUT', `${prefix}variants/${key}/128.webp`)).toBe(1);
  });

  it('never deletes a file that another instance has just stored for a record it is writing', async () => {
    const image = await png(302);
    // B receives the bytes and, before its write, A lets go of the same content (no record points at it yet).
    await b.engine.withUploads(testContext(), async (receive) => {
      const input = await receive(Readable.from([image]));
      expect(await filesOf(a).release(input.key, () => Promise.resolve(false))).toBe(true);
      await filesOf(a).sweep();
      const values = validateInput(b.model, userType(b), { profilePicture: input }, 'patch');
      await b.engine.write(testContext(), planUpdate(b.model, 'User', '3', values, ANONYMOUS));
    });
    const user = await http(b.url, 'GET', '/users/3?fields=profilePicture');
    const key = (user.json.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
    // A sweeper with no wait, once the mark is due: the database says user 3 refers to the file, so it stays.
    const sweeper = createFileService({ store: s3.store(prefix), releaseDelayMs: 0 });
    bindFiles(a.model, a.db, sweeper);
    // (It deletes the seeded pictures the uploads above replaced: nothing points at those.)
    await sweeper.sweep();
    sweeper.close();
    expect(await marksOf(a).markedAt(key)).toBeUndefined();
    expect(await filesOf(a).store.exists(key)).toBe(true);
    expect((await fetchBody(`${a.url}/files/${key}`)).body.equals(image)).toBe(true);
  });

  it('withdraws a release when an upload on another instance stores the same bytes again', async () => {
    const image = await png(303);
    const first = await putFile(a.url, '/users/4/profilePicture', image);
    const key = (first.json.profilePicture as string).replace(/^\/files\//, '').replace(/\/\d+$/, '');
    expect((await http(a.url, 'DELETE', '/users/4/profilePicture')).status).toBe(204);
    expect(await marksOf(a).markedAt(key)).toBeInstanceOf(Date);
    expect((await putFile(b.url, '/users/5/profilePicture', image)).status).toBe(200);
    expect(await marksOf(a).markedAt(key)).toBeUndefined();
  });
});
