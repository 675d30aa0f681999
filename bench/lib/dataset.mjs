// The benchmark's data set, made by Diglot's own deterministic seeder (the
// same values on every machine) and given to each peer in its own form:
//
// - SQLite: seeded once, then one copy of the file per SQLite server process
//   (so no two processes share a lock or a WAL);
// - PostgreSQL: a dedicated database (`diglot_bench` by default), created at
//   the start and dropped at the end, analysed after loading;
// - json-server: a db.json exported from the SQLite copy, each record in the
//   shape Diglot's REST answers with.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postFromSqlite, userFromSqlite } from '../servers/hand-data.mjs';
import { withoutDirectives } from '../../dist/schema/without-directives.js';

/** `diglot seed --scale 10`: 10,000 users, 100,000 posts (skewed), 200,000 follows (and 2,000 products, 20,000 orders, 60,000 order items no workload reads). */
export const SCALE = 10;

/**
 * Seeds through Diglot's own command line, so the data (and the files it
 * makes, such as the demo profile pictures, in `filesDir`) are where
 * `diglot serve --files filesDir` finds them. Resolves to the rows written per table.
 */
function seedInto({ root, schemaFile, dataDir }, target, filesDir) {
  const child = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'seed', '--schema', schemaFile, '--db', target, '--files', filesDir, '--scale', String(SCALE)],
    { cwd: dataDir, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`diglot seed --db ${target} failed:\n${stderr.slice(-2000)}`));
        return;
      }
      const summary = /seeded ((?:\d+ \w+(?:, )?)+) in /.exec(stderr)?.[1] ?? '';
      resolve(Object.fromEntries(summary.split(', ').filter(Boolean).map((part) => [part.slice(part.indexOf(' ') + 1), Number(part.slice(0, part.indexOf(' ')))])));
    });
  });
}

export function adminUrl(pgUrl) {
  const url = new URL(pgUrl);
  url.pathname = '/postgres';
  return url.href;
}

export function databaseName(pgUrl) {
  return decodeURIComponent(new URL(pgUrl).pathname.slice(1));
}

/** True when PostgreSQL answers at that server. */
export async function pgAvailable(pgUrl) {
  return withAdmin(pgUrl, (client) => client.query('SELECT 1')).then(
    () => true,
    () => false,
  );
}

/** Runs `work` with a connection to the server's `postgres` database, closed afterwards. */
export async function withAdmin(pgUrl, work) {
  const client = new pg.Client({ connectionString: adminUrl(pgUrl), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    return await work(client);
  } finally {
    // Also after a failed connect, which would otherwise leave its socket to the collector.
    await client.end().catch(() => undefined);
  }
}

export async function dropPgDatabase(pgUrl) {
  await withAdmin(pgUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${databaseName(pgUrl)}" WITH (FORCE)`));
}

/** Creates the database `pgUrl` names, empty or as a copy of the database `templateUrl` names. */
export async function createPgDatabase(pgUrl, templateUrl) {
  const template = templateUrl === undefined ? '' : ` TEMPLATE "${databaseName(templateUrl)}"`;
  await withAdmin(pgUrl, (client) => client.query(`CREATE DATABASE "${databaseName(pgUrl)}"${template}`));
}

/**
 * The example schema without its `@allow` rules, written beside the data:
 * the workloads measure the engine against peers that check no permissions
 * and answer every field, so Diglot serves the same open schema. (Reads
 * under the rules are their own workloads.)
 */
export function writeOpenSchema(root, dataDir) {
  let text = readFileSync(join(root, 'examples/social/schema.graphql'), 'utf8');
  // Rules, the role enum's mark, values from the principal and the accounts' mark: what a build before permissions would not know either.
  text = withoutDirectives(text, ['@allow(', '@roles(', '@default(fromAuth', '@account(']);
  const file = join(dataDir, 'schema.graphql');
  writeFileSync(file, text);
  return file;
}

/**
 * Builds everything under `dataDir`. Returns the file paths and URL each
 * peer is started with, and the rows written per table.
 */
export async function buildDataset({ root, dataDir, pgUrl, log, jsonServer = true }) {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(join(dataDir, 'files'), { recursive: true });
  const schemaFile = writeOpenSchema(root, dataDir);
  const where = { root, schemaFile, dataDir };
  // json-server serves ./public and insists that it exists.
  mkdirSync(join(dataDir, 'public'), { recursive: true });

  const files = { sqlite: join(dataDir, 'files-sqlite'), pg: join(dataDir, 'files-pg') };
  const copies = { diglot: join(dataDir, 'diglot.db') };
  // SQLite and PostgreSQL are seeded at the same time, by two `diglot seed` processes with their own file directories.
  const sqliteDone = (async () => {
    const started = performance.now();
    const rows = await seedInto(where, copies.diglot, files.sqlite);
    log(`  SQLite: seeded ${describeRows(rows)} in ${seconds(started)}`);
    // Seeding closed the database cleanly (WAL checkpointed): the file alone is the data set.
    for (const name of ['fastify', 'mercurius', 'lean', 'batched', 'rules', 'member']) {
      copies[name] = join(dataDir, `${name}.db`);
      copyFileSync(copies.diglot, copies[name]);
    }
    return rows;
  })();
  const pgDone = pgUrl === undefined ? Promise.resolve() : seedPostgres(where, pgUrl, files.pg, log);
  // Both finish (or fail) before anything else happens: no seeding process outlives this function.
  const [sqliteResult, pgResult] = await Promise.allSettled([sqliteDone, pgDone]);
  for (const result of [sqliteResult, pgResult]) if (result.status === 'rejected') throw result.reason;
  const rows = sqliteResult.value;

  const dbJson = join(dataDir, 'db.json');
  if (jsonServer) {
    const started = performance.now();
    exportDbJson(copies.diglot, dbJson);
    log(`  json-server: wrote db.json (users and posts) in ${seconds(started)}`);
  }

  // The same tables serve the example with its rules: the @allow directives change no column.
  const rulesSchemaFile = join(root, 'examples/social/schema.graphql');
  return { schemaFile, rulesSchemaFile, sqlite: copies, pgUrl, dbJson, diglotFiles: files, filesDir: join(dataDir, 'files'), rows };
}

async function seedPostgres(where, pgUrl, filesDir, log) {
  const started = performance.now();
  await dropPgDatabase(pgUrl);
  await createPgDatabase(pgUrl);
  await seedInto(where, pgUrl, filesDir);
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    // Plans as a running server would have them once autovacuum has been by.
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
  log(`  PostgreSQL: created ${databaseName(pgUrl)}, seeded and analysed in ${seconds(started)}`);
}

/** db.json for json-server: users and posts as Diglot's REST renders them (follows are not used by its workloads). */
function exportDbJson(sqliteFile, target) {
  const db = new Database(sqliteFile, { readonly: true });
  try {
    const users = db.prepare('SELECT * FROM users ORDER BY CAST(id AS INTEGER)').all().map(userFromSqlite);
    const posts = db.prepare('SELECT * FROM posts ORDER BY CAST(id AS INTEGER)').all().map(postFromSqlite);
    writeFileSync(target, JSON.stringify({ users, posts }));
  } finally {
    db.close();
  }
}

function describeRows(rows) {
  return Object.entries(rows)
    .map(([table, count]) => `${count.toLocaleString('en')} ${table}`)
    .join(', ');
}

function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(1)}s`;
}
