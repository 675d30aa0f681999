/**
 * Serving stored images: the seeded demo pictures, variants at the widths of
 * the allow-list (made once, even for concurrent first requests), format
 * negotiation with a correct `Vary`, immutable caching with strong ETags and
 * 304s, HEAD, and 404 for widths and keys that do not exist.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { dimensions, jpeg, png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { keyOf, putFile } from '../support/uploads.js';
import { gql } from '../graphql/graphql-client.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

describeEachDialect('serving files and variants', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
  });
  afterAll(() => server.close());

  async function fetchImage(url: string, headers: Record<string, string> = {}): Promise<{ response: Response; body: Buffer }> {
    const response = await fetch(`${server.url}${url}`, { headers });
    return { response, body: Buffer.from(await response.arrayBuffer()) };
  }

  async function uploaded(image: Buffer): Promise<string> {
    const response = await putFile(server.url, '/users/2/profilePicture', image);
    expect(response.status).toBe(200);
    return response.json.profilePicture as string;
  }

  describe('the demo data', () => {
    it('gives user 42 a picture: profilePicture(size: 64) is a URL of a 64 px image', async () => {
      const response = await gql(server.url, '{ user(id: "42") { name profilePicture(size: 64) } }');
      expect(response.json.errors).toBeUndefined();
      const url = response.json.data.user.profilePicture as string;
      expect(url).toMatch(/^\/files\/[0-9a-f]{64}\.png\/64$/);
      const { response: image, body } = await fetchImage(url);
      expect(image.status).toBe(200);
      expect(image.headers.get('cache-control')).toBe(IMMUTABLE);
      expect((await dimensions(body)).width).toBe(64);
    });

    it('snaps REST sizes up to the allow-list, as GraphQL does, and every snapped URL serves that width', async () => {
      for (const [asked, served] of [[1, 32], [50, 64], [64, 64], [200, 256], [9999, 256]] as const) {
        const response = await http(server.url, 'GET', `/users/42?fields=profilePicture&profilePicture.size=${asked}`);
        const url = response.json.profilePicture as string;
        expect(url.endsWith(`/${served}`), `${asked} → ${url}`).toBe(true);
        expect((await dimensions((await fetchImage(url)).body)).width).toBe(served);
      }
    });

    it('gives the first 50 records of each image field a picture (products too), and the rest none', async () => {
      // The demo pictures are 256 px square: a 512 variant is the picture at its own size, never enlarged.
      const first = await http(server.url, 'GET', '/products/1?fields=photo&photo.size=512');
      expect(first.json.photo).toMatch(/\/512$/);
      expect(await dimensions((await fetchImage(first.json.photo as string)).body)).toMatchObject({ width: 256, height: 256 });
      expect((await http(server.url, 'GET', '/users/50?fields=profilePicture')).json.profilePicture).toMatch(/^\/files\//);
      expect((await http(server.url, 'GET', '/users/51?fields=profilePicture')).json.profilePicture).toBeNull();
    });
  });

  describe('variants', () => {
    it('negotiate the format: AVIF or WebP when Accept names them, the original format otherwise, with Vary: Accept', async () => {
      const url = `${await uploaded(await png(101))}/64`;
      const cases: [string | undefined, string, string][] = [
        ['image/avif,image/webp,image/*,*/*;q=0.8', 'image/avif', 'heif'],
        ['image/webp,*/*', 'image/webp', 'webp'],
        [undefined, 'image/png', 'png'],
        ['*/*', 'image/png', 'png'],
        ['image/avif;q=0, image/webp;q=0, */*', 'image/png', 'png'],
      ];
      const etags = new Map<string, string>();
      for (const [accept, type, format] of cases) {
        const { response, body } = await fetchImage(url, accept === undefined ? {} : { accept });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type'), accept).toBe(type);
        expect(response.headers.get('vary')).toBe('Accept');
        expect(response.headers.get('cache-control')).toBe(IMMUTABLE);
        const meta = await dimensions(body);
        expect(meta).toMatchObject({ format, width: 64 });
        expect(meta.height).toBe(43);
        etags.set(type, response.headers.get('etag') ?? '');
      }
      // One ETag per representation, each revalidating only itself.
      expect(new Set(etags.values()).size).toBe(3);
      const webpEtag = etags.get('image/webp') ?? '';
      const revalidated = await fetchImage(url, { accept: 'image/webp', 'if-none-match': webpEtag });
      expect(revalidated.response.status).toBe(304);
      expect(revalidated.body.length).toBe(0);
      expect(revalidated.response.headers.get('etag')).toBe(webpEtag);
      expect(revalidated.response.headers.get('cache-control')).toBe(IMMUTABLE);
      expect((await fetchImage(url, { accept: 'image/png', 'if-none-match': webpEtag })).response.status).toBe(200);
    });

    it('prefer WebP over AVIF above 256 px, where AVIF is slow to encode', async () => {
      const response = await http(server.url, 'GET', '/products/1?fields=photo&photo.size=512');
      const { response: image } = await fetchImage(response.json.photo as string, { accept: 'image/avif,image/webp,*/*' });
      expect(image.headers.get('content-type')).toBe('image/webp');
    });

    it('are made once: concurrent first requests share one resize, later ones read the stored variant', async () => {
      const original = await uploaded(await png(102));
      const key = keyOf(original);
      const files = server.files;
      if (files === undefined) throw new Error('the server has no file store');
      const before = files.stats.resizes;
      const bodies = await Promise.all(Array.from({ length: 8 }, () => fetchImage(`${original}/128`, { accept: 'image/webp' })));
      expect(bodies.map(({ response }) => response.status)).toEqual(Array(8).fill(200));
      expect(files.stats.resizes - before).toBe(1);
      expect(new Set(bodies.map(({ body }) => body.toString('base64'))).size).toBe(1);
      expect(existsSync(join(server.filesDir ?? '', 'variants', key.slice(0, 2), key, '128.webp'))).toBe(true);
      await fetchImage(`${original}/128`, { accept: 'image/webp' });
      expect(files.stats.resizes - before).toBe(1);
      // Another format is another variant: one more resize.
      await Promise.all(Array.from({ length: 4 }, () => fetchImage(`${original}/128`)));
      expect(files.stats.resizes - before).toBe(2);
    });

    it('are exactly `width` wide after EXIF orientation, height in proportion', async () => {
      // 300 × 200 pixels stored sideways: orientation 6 shows it as 200 × 300.
      const sideways = await sharp(await jpeg(103)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
      const url = `${await uploaded(sideways)}/64`;
      expect(await dimensions((await fetchImage(url)).body)).toMatchObject({ width: 64, height: 96 });
    });

    it('never enlarge a narrower original: it is served at its own size', async () => {
      const url = `${await uploaded(await png(104, 20, 10))}/256`;
      expect(await dimensions((await fetchImage(url)).body)).toMatchObject({ width: 20, height: 10 });
    });

    it('of a 1 × 60 JPEG at 1280: the original size, not a strip too tall for JPEG (was a 500)', async () => {
      const response = await putFile(server.url, '/posts/1/cover', await jpeg(106, 1, 60), 'strip.jpg', 'image/jpeg');
      expect(response.status).toBe(200);
      const { response: image, body } = await fetchImage(`${response.json.cover as string}/1280`);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      expect(await dimensions(body)).toMatchObject({ format: 'jpeg', width: 1, height: 60 });
    });

    it('of an image too tall for the format are scaled down into its largest side, in every format (a 1 × 20,000 PNG at 256 took seconds of CPU)', async () => {
      const tall = await uploaded(await png(107, 1, 20_000));
      const cases: [string, string, number][] = [
        ['image/webp', 'webp', 16_383],
        ['image/avif', 'heif', 16_384],
        ['*/*', 'png', 20_000],
      ];
      for (const [accept, format, height] of cases) {
        const { response, body } = await fetchImage(`${tall}/256`, { accept });
        expect(response.status, accept).toBe(200);
        expect(await dimensions(body), accept).toMatchObject({ format, width: 1, height });
      }
    });

    it('answer HEAD with GET\'s headers and no body', async () => {
      const url = `${await uploaded(await png(105))}/32`;
      const get = await fetchImage(url, { accept: 'image/webp' });
      const head = await fetch(`${server.url}${url}`, { method: 'HEAD', headers: { accept: 'image/webp' } });
      expect(head.status).toBe(200);
      for (const name of ['content-type', 'content-length', 'etag', 'cache-control', 'vary']) expect(head.headers.get(name), name).toBe(get.response.headers.get(name));
      expect(Number(head.headers.get('content-length'))).toBe(get.body.length);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      const original = url.replace(/\/32$/, '');
      const headOriginal = await fetch(`${server.url}${original}`, { method: 'HEAD' });
      expect(headOriginal.headers.get('content-length')).toBe(String((await png(105)).length));
      expect(headOriginal.headers.get('etag')).toBe(`"${keyOf(original).split('.')[0] ?? ''}"`);
    });

    it('exist only at allowed widths and for stored keys: anything else is 404', async () => {
      const original = await uploaded(await png(106));
      const notAllowed = await http(server.url, 'GET', `${original}/100`);
      expect(notAllowed.status).toBe(404);
      expect(notAllowed.json).toMatchObject({ code: 'NOT_FOUND', sizes: [32, 64, 128, 256, 320, 512, 640, 1280] });
      for (const path of [`${original}/064`, `${original}/-64`, `${original}/64.5`, `/files/${'f'.repeat(64)}.png`, `/files/${'f'.repeat(64)}.png/64`, '/files/..%2F..%2Fetc%2Fpasswd', '/files/abc.png/64']) {
        const response = await http(server.url, 'GET', path);
        expect(response.status, path).toBe(404);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    });
  });

  describe('hostile bytes', () => {
    const SANDBOX = "default-src 'none'; sandbox";

    /** The headers that keep a browser from running what a file carries, with the name the response gives it. */
    function expectInert(response: Response, filename: string): void {
      expect(response.headers.get('content-security-policy')).toBe(SANDBOX);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-disposition')).toBe(`inline; filename="${filename}"`);
      expect(response.headers.get('content-type')).toMatch(/^image\//);
    }

    it('a PNG with a script appended passes the checks, and is served as an inert image, original and variants', async () => {
      // Decoders stop at IEND, so nothing in the upload checks sees the HTML: the response headers must neutralise it.
      const polyglot = Buffer.concat([await png(107), Buffer.from('<html><script>alert(1)</script></html>')]);
      const original = await uploaded(polyglot);
      const key = keyOf(original);
      const sha = key.split('.')[0] ?? '';

      const served = await fetchImage(original);
      expect(served.response.status).toBe(200);
      expect(served.body.equals(polyglot)).toBe(true);
      expectInert(served.response, key);
      const head = await fetch(`${server.url}${original}`, { method: 'HEAD' });
      expectInert(head, key);
      const revalidated = await fetchImage(original, { 'if-none-match': `"${sha}"` });
      expect(revalidated.response.status).toBe(304);
      expect(revalidated.response.headers.get('content-security-policy')).toBe(SANDBOX);

      const variant = await fetchImage(`${original}/64`, { accept: 'image/webp' });
      expect(variant.response.status).toBe(200);
      expect(variant.body.includes('<script>')).toBe(false);
      expectInert(variant.response, `${sha}-64.webp`);
      expectInert((await fetchImage(`${original}/64`)).response, `${sha}-64.png`);
    });

    it('the seeded pictures carry the same headers', async () => {
      const response = await http(server.url, 'GET', '/users/42?fields=profilePicture&profilePicture.size=32');
      const url = response.json.profilePicture as string;
      const sha = keyOf(url).split('.')[0] ?? '';
      expectInert((await fetchImage(url)).response, `${sha}-32.png`);
    });
  });
});
