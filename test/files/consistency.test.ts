/**
 * Records and files stay consistent: an upload that breaks off leaves no
 * trace, a failed write keeps none of its files, and a file goes when the
 * last record pointing at it does (replaced, removed, or deleted with its
 * record — including records deleted by a cascade), but not before: content
 * addressing lets records share one file.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { bigJpeg, png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { eventually, filesUnder, keyOf, putFile, stagedFiles, storedKeys } from '../support/uploads.js';

describeEachDialect('records and their files', (ctx) => {
  let server: TestServer;
  let dir: string;
  let serial = 0;
  const logged: { level: number; msg: string }[] = [];

  beforeAll(async () => {
    const stream = { write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }) };
    server = await startServer(() => ctx.open(), { server: { logger: { level: 'warn', stream } }, files: { maxUploadBytes: 1024 * 1024 }, seed: { counts: { User: 5, Post: 5, Product: 2, Order: 2, OrderItem: 2 }, linksPerRecord: 1, pictures: 0 } });
    dir = server.filesDir as string;
  });
  afterAll(() => server.close());

  async function newUser(): Promise<string> {
    serial += 1;
    const response = await http(server.url, 'POST', '/users', { body: { name: `Owner ${serial}`, email: `owner${serial}-${ctx.dialect}@example.com` } });
    expect(response.status).toBe(201);
    return response.json.id as string;
  }

  async function upload(path: string, image: Buffer): Promise<string> {
    const response = await putFile(server.url, path, image);
    expect(response.status, response.text).toBe(200);
    return keyOf(Object.values(response.json as Record<string, unknown>).find((value) => typeof value === 'string' && value.startsWith('/files/')) as string);
  }

  /** Makes a variant exist on disk, so deleting the file must remove it too. */
  async function touchVariant(key: string, width: number): Promise<void> {
    const response = await fetch(`${server.url}/files/${key}/${width}`, { headers: { accept: 'image/webp' } });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }

  function onDisk(key: string): string[] {
    return filesUnder(dir).filter((path) => path.includes(key));
  }

  it('an upload that breaks off mid-stream leaves no temporary file, no new file, and the old picture serving', async () => {
    const id = await newUser();
    const oldKey = await upload(`/users/${id}/profilePicture`, await png(201));
    const keys = storedKeys(dir);
    const image = await bigJpeg(202, 600);
    const boundary = '----diglot-abort-test';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const request = httpRequest(`${server.url}/users/${id}/profilePicture`, {
      method: 'PUT',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + image.length + tail.length) },
    });
    request.on('error', () => undefined);
    request.write(head);
    request.write(image.subarray(0, Math.floor(image.length / 2)));
    // The server has started receiving: the upload is being staged.
    await eventually(() => stagedFiles(dir).length > 0);
    request.destroy();
    await eventually(() => stagedFiles(dir).length === 0);
    expect(storedKeys(dir)).toEqual(keys);
    const record = await http(server.url, 'GET', `/users/${id}?fields=profilePicture`);
    expect(keyOf(record.json.profilePicture as string)).toBe(oldKey);
    expect((await fetch(`${server.url}/files/${oldKey}/64`)).status).toBe(200);
    // A client hanging up is not the server's fault: no internal error in the log.
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('a write that fails after the upload (a stale If-Match) keeps none of the new file', async () => {
    const id = await newUser();
    const oldKey = await upload(`/users/${id}/profilePicture`, await png(203));
    const keys = storedKeys(dir);
    const response = await putFile(server.url, `/users/${id}/profilePicture`, await png(204), 'p.png', 'image/png', { 'if-match': '"stale"' });
    expect(response.status).toBe(412);
    expect(storedKeys(dir)).toEqual(keys);
    expect(storedKeys(dir)).toContain(oldKey);
  });

  it('replacing a picture deletes the old file and its variants', async () => {
    const id = await newUser();
    const oldKey = await upload(`/users/${id}/profilePicture`, await png(205));
    await touchVariant(oldKey, 64);
    expect(onDisk(oldKey).length).toBe(2);
    const newKey = await upload(`/users/${id}/profilePicture`, await png(206));
    expect(newKey).not.toBe(oldKey);
    expect(onDisk(oldKey)).toEqual([]);
    expect(onDisk(newKey).length).toBe(1);
    expect((await http(server.url, 'GET', `/files/${oldKey}`)).status).toBe(404);
  });

  it('keeps a file two records share until the last of them lets go', async () => {
    const [first, second] = [await newUser(), await newUser()];
    const image = await png(207);
    const shared = await upload(`/users/${first}/profilePicture`, image);
    expect(await upload(`/users/${second}/profilePicture`, image)).toBe(shared);
    expect(storedKeys(dir).filter((key) => key === shared)).toHaveLength(1);

    expect((await http(server.url, 'DELETE', `/users/${first}/profilePicture`)).status).toBe(204);
    expect(storedKeys(dir)).toContain(shared);
    expect((await http(server.url, 'DELETE', `/users/${second}`)).status).toBe(204);
    expect(storedKeys(dir)).not.toContain(shared);
  });

  it('deleting a record deletes its files, and those of the records the delete cascades to', async () => {
    const id = await newUser();
    const picture = await upload(`/users/${id}/profilePicture`, await png(208));
    await touchVariant(picture, 32);
    const post = await http(server.url, 'POST', '/posts', { body: { title: 'With a cover', body: 'Text.', author: id } });
    expect(post.status).toBe(201);
    const cover = await upload(`/posts/${post.json.id as string}/cover`, await png(209));
    await touchVariant(cover, 320);
    expect(onDisk(picture).length + onDisk(cover).length).toBe(4);

    expect((await http(server.url, 'DELETE', `/users/${id}`)).status).toBe(204);
    expect((await http(server.url, 'GET', `/posts/${post.json.id as string}`)).status).toBe(404);
    expect(onDisk(picture)).toEqual([]);
    expect(onDisk(cover)).toEqual([]);
    expect((await http(server.url, 'GET', `/files/${cover}/320`)).status).toBe(404);
  });

  it('deleting over GraphQL cleans up the same way', async () => {
    const id = await newUser();
    const picture = await upload(`/users/${id}/profilePicture`, await png(210));
    const response = await http(server.url, 'POST', '/graphql', { body: { query: `mutation { deleteUser(id: "${id}") { id } }` } });
    expect(response.json.data.deleteUser.id).toBe(id);
    expect(onDisk(picture)).toEqual([]);
  });

  it('concurrent uploads of the same bytes to different records all keep the one file', async () => {
    const ids = await Promise.all([newUser(), newUser(), newUser()]);
    const image = await png(211);
    const keys = await Promise.all(ids.map((id) => upload(`/users/${id}/profilePicture`, image)));
    expect(new Set(keys).size).toBe(1);
    expect(storedKeys(dir)).toContain(keys[0]);
    expect(stagedFiles(dir)).toEqual([]);
    for (const id of ids) expect((await http(server.url, 'GET', `/users/${id}?fields=profilePicture`)).json.profilePicture).toBe(`/files/${keys[0] ?? ''}`);
  });
});
