// The peers: each one a separate server process on 127.0.0.1, started by the
// runner with the project's Node. `db` says where its data lives, which
// decides whose CPU is counted as the database's (PostgreSQL backends) and
// which yardstick a Diglot figure is compared with.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JWT_SECRET } from './member-token.mjs';

/**
 * The V8 flags Diglot's CLI gives a server by replacing its own process. It
 * cannot under the runner, whose IPC channel would not survive that, so
 * launchSpec passes them: the bench measures Diglot as `diglot serve` runs.
 * Read from the build, which the runner makes first.
 */
export async function diglotNodeFlags(root) {
  const { serverNodeFlags } = await import(pathToFileURL(join(root, 'dist/cli/heap-flags.js')).href);
  return (db) => [...serverNodeFlags(db)];
}

export const PEERS = [
  { name: 'node-http', label: 'node:http, fixed body (ceiling)', db: 'none' },
  { name: 'fastify-fixed', label: 'Fastify, fixed body (the framework alone)', db: 'none' },
  { name: 'diglot-sqlite', label: 'Diglot, SQLite', db: 'sqlite', copy: 'diglot', diglot: true },
  { name: 'diglot-pg', label: 'Diglot, PostgreSQL', db: 'pg', diglot: true },
  { name: 'diglot-rules-sqlite', label: "Diglot, SQLite, the example's rules, anonymous", db: 'sqlite', copy: 'rules', diglot: true, rules: true },
  { name: 'diglot-member-sqlite', label: "Diglot, SQLite, the example's rules, a member's JWT", db: 'sqlite', copy: 'member', diglot: true, rules: true },
  { name: 'fastify-sqlite', label: 'Fastify + better-sqlite3 (hand-written REST)', db: 'sqlite', copy: 'fastify' },
  { name: 'fastify-pg', label: 'Fastify + pg (hand-written REST)', db: 'pg' },
  { name: 'mercurius-sqlite', label: 'Fastify + mercurius + better-sqlite3 (hand-written GraphQL)', db: 'sqlite', copy: 'mercurius' },
  { name: 'lean-sqlite', label: 'Fastify + better-sqlite3, lean (JSON.stringify, no ETag)', db: 'sqlite', copy: 'lean' },
  { name: 'lean-pg', label: 'Fastify + pg, lean (JSON.stringify, no ETag)', db: 'pg' },
  { name: 'mercurius-batched-sqlite', label: 'Fastify + mercurius + better-sqlite3, one statement per level', db: 'sqlite', copy: 'batched' },
  { name: 'mercurius-pg', label: 'Fastify + mercurius + pg (hand-written GraphQL)', db: 'pg' },
  { name: 'postgraphile', label: 'PostGraphile 5, PostgreSQL', db: 'pg' },
  { name: 'json-server', label: 'json-server 1 (beta), db.json', db: 'memory' },
];

export const peerByName = new Map(PEERS.map((peer) => [peer.name, peer]));

/** The SQLite file a SQLite peer serves: each has its own copy of the data set (`copy`), so none shares a lock or a WAL. */
export function sqliteFileOf(name, dataset) {
  const copy = peerByName.get(name)?.copy;
  return copy === undefined ? undefined : dataset.sqlite[copy];
}

/** Rate limits stay on (their cost is part of what is measured) with budgets no run exhausts. */
export const UNMETERED = { DIGLOT_RATE_LIMIT_ANONYMOUS: '1000000000/60', DIGLOT_RATE_LIMIT_MEMBER: '1000000000/60' };

/** How to start a peer: script, arguments, environment, working directory and a path that answers once it is up. */
export function launchSpec(name, { root, benchDir, dataset, dataDir, port, diglotFlags = () => [] }) {
  const server = (file) => join(benchDir, 'servers', file);
  // The rules peers serve the example schema as it is, with its @allow rules, and accept the run's member tokens.
  const diglot = (db, files, rules = false) => ({
    script: join(root, 'dist/cli/main.js'),
    nodeArgs: diglotFlags(db),
    args: ['serve', '--schema', rules ? dataset.rulesSchemaFile : dataset.schemaFile, '--db', db, '--files', files, '--port', String(port), '--host', '127.0.0.1'],
    // Every load generator's connection comes from one address: a budget a real API gives one client would refuse the run within seconds.
    env: { LOG_LEVEL: 'warn', ...UNMETERED, ...(rules ? { DIGLOT_JWT_SECRET: JWT_SECRET } : {}) },
    cwd: dataDir,
    readyPath: '/healthz',
  });
  switch (name) {
    case 'node-http':
      return { script: server('ceiling.mjs'), args: ['--port', String(port)] };
    case 'fastify-fixed':
      return { script: server('fastify-fixed.mjs'), args: ['--port', String(port)] };
    case 'diglot-sqlite':
      return diglot(sqliteFileOf(name, dataset), dataset.diglotFiles.sqlite);
    case 'diglot-pg':
      return diglot(dataset.pgUrl, dataset.diglotFiles.pg);
    case 'diglot-rules-sqlite':
    case 'diglot-member-sqlite':
      return diglot(sqliteFileOf(name, dataset), dataset.diglotFiles.sqlite, true);
    case 'fastify-sqlite':
      return { script: server('hand-rest.mjs'), args: ['--port', String(port), '--db', sqliteFileOf(name, dataset), '--files', dataset.filesDir], readyPath: '/users/1' };
    case 'fastify-pg':
      return { script: server('hand-rest.mjs'), args: ['--port', String(port), '--db', dataset.pgUrl, '--files', dataset.filesDir], readyPath: '/users/1' };
    case 'mercurius-sqlite':
      return { script: server('hand-graphql.mjs'), args: ['--port', String(port), '--db', sqliteFileOf(name, dataset)], readyPath: '/graphql?query={__typename}' };
    case 'lean-sqlite':
      return { script: server('lean-rest.mjs'), args: ['--port', String(port), '--db', sqliteFileOf(name, dataset)], readyPath: '/users/1' };
    case 'lean-pg':
      return { script: server('lean-rest.mjs'), args: ['--port', String(port), '--db', dataset.pgUrl], readyPath: '/users/1' };
    case 'mercurius-batched-sqlite':
      return { script: server('hand-graphql.mjs'), args: ['--port', String(port), '--db', sqliteFileOf(name, dataset), '--batched'], readyPath: '/graphql?query={__typename}' };
    case 'mercurius-pg':
      return { script: server('hand-graphql.mjs'), args: ['--port', String(port), '--db', dataset.pgUrl], readyPath: '/graphql?query={__typename}' };
    case 'postgraphile':
      return { script: server('postgraphile.mjs'), args: ['--port', String(port), '--db', dataset.pgUrl], readyPath: '/graphql' };
    case 'json-server':
      return {
        script: join(benchDir, 'node_modules/json-server/lib/bin.js'),
        args: [dataset.dbJson, '--port', String(port), '--host', '127.0.0.1'],
        cwd: dataDir,
        readyPath: '/users/1',
      };
    default:
      throw new Error(`unknown peer ${name}`);
  }
}
