// The lean REST yardstick (issue 28): the least a competent developer would
// write for the same routes — Fastify, the shared prepared statements of
// hand-data.mjs, input validated by a JSON schema, answers written by plain
// JSON.stringify (no response schemas) and no ETag. The routes W1, W3 and W6
// ask, answering what Diglot answers (run.mjs compares them before measuring).
//
//   node servers/lean-rest.mjs --port 4000 --db <sqlite file | postgres://…>

import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { closeOnSignal, openData } from './open-data.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' }, db: { type: 'string' } } });
const { data, close } = openData(values.db);
const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } };
const postsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, sort: { enum: ['id', '-createdAt'], default: 'id' } },
};
const userInput = {
  type: 'object',
  required: ['name', 'email'],
  additionalProperties: false,
  properties: Object.fromEntries(
    ['name', 'email', 'username', 'bio', 'pronouns', 'location', 'website', 'company', 'jobTitle', 'phone'].map((field) => [field, { type: 'string', maxLength: 1000 }]),
  ),
};
const cursorOf = (values) => Buffer.from(JSON.stringify(values)).toString('base64url');

app.get('/users/:id', { schema: { params: idParams } }, async (request, reply) => {
  const user = await data.user(request.params.id);
  return user ?? reply.code(404).send({ error: `User ${request.params.id} does not exist` });
});

app.get('/users/:id/posts', { schema: { params: idParams, querystring: postsQuery } }, async (request) => {
  const { limit, sort } = request.query;
  const newest = sort === '-createdAt';
  const rows = await data.postsOf(request.params.id, limit + 1, newest);
  const hasMore = rows.length > limit;
  const posts = hasMore ? rows.slice(0, limit) : rows;
  const last = posts.at(-1);
  return { data: posts, hasMore, nextCursor: hasMore ? cursorOf(newest ? [last.createdAt, last.id] : [last.id]) : null, prevCursor: null };
});

app.post('/users', { schema: { body: userInput } }, async (request, reply) => {
  try {
    const user = await data.createUser(request.body);
    return reply.code(201).header('location', `/users/${user.id}`).send(user);
  } catch (error) {
    if (/unique|duplicate/i.test(String(error.message))) return reply.code(409).send({ error: 'email is taken' });
    throw error;
  }
});

await app.listen({ port: Number(values.port), host: '127.0.0.1' });
closeOnSignal(app, close);
