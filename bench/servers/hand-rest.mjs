// The REST yardstick: a hand-written Fastify server over better-sqlite3 (or pg),
// as a competent developer writes it — prepared statements, response schemas
// (fast-json-stringify), keyset pages, input validated by a JSON schema, and
// ETag / If-None-Match the way @fastify/etag does it (hash of the body after
// running the query).
//
//   node servers/hand-rest.mjs --port 4000 --db <sqlite file | postgres://…> [--files <dir>]

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { POST_SCHEMA, USER_SCHEMA } from './hand-data.mjs';
import { closeOnSignal, openData } from './open-data.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' }, db: { type: 'string' }, files: { type: 'string' } } });
const { data, close } = openData(values.db);
const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });

app.addHook('onSend', async (request, reply, payload) => {
  if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const etag = `"${createHash('sha1').update(payload).digest('base64url')}"`;
  reply.header('etag', etag);
  if (request.headers['if-none-match'] === etag) {
    reply.code(304);
    return '';
  }
  return payload;
});

const listOf = (item) => ({
  type: 'object',
  properties: { data: { type: 'array', items: item }, hasMore: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } },
});
const pageQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, after: { type: 'string' }, sort: { enum: ['id', '-createdAt'] } },
};
const cursorOf = (values) => Buffer.from(JSON.stringify(values)).toString('base64url');
const page = (rows, limit, key) => {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items.at(-1);
  return { data: items, hasMore, nextCursor: hasMore && last !== undefined ? cursorOf(key(last)) : null };
};
const notFound = (reply, what) => reply.code(404).send({ error: `${what} does not exist` });

app.get('/users/:id', { schema: { response: { 200: USER_SCHEMA } } }, async (request, reply) => {
  const user = await data.user(request.params.id);
  return user === undefined ? notFound(reply, `User ${request.params.id}`) : user;
});

app.get('/users', { schema: { querystring: pageQuery, response: { 200: listOf(USER_SCHEMA) } } }, async (request) => {
  const { limit, after } = request.query;
  const afterId = after === undefined ? undefined : JSON.parse(Buffer.from(after, 'base64url').toString())[0];
  return page(await data.users(limit + 1, afterId), limit, (user) => [user.id]);
});

app.get('/users/:id/posts', { schema: { querystring: pageQuery, response: { 200: listOf(POST_SCHEMA) } } }, async (request) => {
  const { limit, sort } = request.query;
  const newest = sort === '-createdAt';
  const posts = await data.postsOf(request.params.id, limit + 1, newest);
  return page(posts, limit, (post) => (newest ? [post.createdAt, post.id] : [post.id]));
});

app.get('/users/:id/followers', { schema: { querystring: pageQuery, response: { 200: listOf(USER_SCHEMA) } } }, async (request) => {
  const { limit } = request.query;
  return page(await data.followersOf(request.params.id, limit + 1), limit, (user) => [user.id]);
});

const userInput = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: Object.fromEntries(
    ['name', 'email', 'username', 'bio', 'pronouns', 'location', 'website', 'company', 'jobTitle', 'phone'].map((field) => [field, { type: 'string', maxLength: 1000 }]),
  ),
};

app.post('/users', { schema: { body: userInput, response: { 201: USER_SCHEMA } } }, async (request, reply) => {
  try {
    const user = await data.createUser(request.body);
    return reply.code(201).header('location', `/users/${user.id}`).send(user);
  } catch (error) {
    if (/unique|duplicate/i.test(String(error.message))) return reply.code(409).send({ error: 'email is taken' });
    throw error;
  }
});

// W10: an image variant already on disk, sent as a static file.
app.get('/files/*', async (request, reply) => {
  if (values.files === undefined) return reply.code(404).send({ error: 'no files' });
  const name = request.params['*'].replaceAll('/', '_');
  try {
    const bytes = await readFile(join(values.files, name));
    return reply.type('image/webp').header('cache-control', 'public, max-age=31536000, immutable').send(bytes);
  } catch {
    return notFound(reply, 'File');
  }
});

await app.listen({ port: Number(values.port), host: '127.0.0.1' });
closeOnSignal(app, close);
