// Fastify's own floor: the same pre-serialized body as the ceiling, sent by a
// Fastify route (no database, no work). The distance between this and the
// node:http ceiling is what the framework costs before any application code.
//
//   node servers/fastify-fixed.mjs --port 4000

import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { CEILING_BODY } from './ceiling-body.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' } } });
const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
app.get('/', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(CEILING_BODY);
});
await app.listen({ port: Number(values.port), host: '127.0.0.1' });

const stop = () => {
  void app.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
