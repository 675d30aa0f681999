// The ceiling: node:http answering every request with one pre-serialized JSON
// body (a user record of the data set's size). Nothing a framework or a
// database does can be faster on this machine.
//
//   node servers/ceiling.mjs --port 4000

import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { CEILING_BODY } from './ceiling-body.mjs';

const { values } = parseArgs({ options: { port: { type: 'string' } } });

const body = CEILING_BODY;
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(Number(values.port), '127.0.0.1');

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
