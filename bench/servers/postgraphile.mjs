// PostGraphile 5 over the PostgreSQL copy of the data set: the schema is
// introspected from Diglot's tables, as a user pointing PostGraphile at the
// same database would get it. Production settings: no GraphiQL, no explain,
// no watch mode, no LISTEN connection.
//
//   node servers/postgraphile.mjs --port 4000 --db postgres://…/diglot_bench

import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

const { values } = parseArgs({ options: { port: { type: 'string' }, db: { type: 'string' } } });

const preset = {
  extends: [PostGraphileAmberPreset],
  // By default only indexed columns can be ordered by; W3 orders posts by
  // createdAt (not indexed in Diglot's tables either), so allow it as a user would.
  disablePlugins: ['PgIndexBehaviorsPlugin'],
  pgServices: [makePgService({ connectionString: values.db, schemas: ['public'], pubsub: false, poolConfig: { max: 10 } })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.keepAliveTimeout = 72_000;
await serv.addTo(server);
server.listen(Number(values.port), '127.0.0.1');

const stop = () => {
  server.close();
  void pgl.release().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
