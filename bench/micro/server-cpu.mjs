// Server CPU per request, for A/B runs of two (or more) builds of Diglot on the same requests.
//
//   npm run build && cp -r dist .ab-before     # the build to compare against (any folder in the project, so node_modules resolve)
//   (change something) && npm run build
//   npm --prefix bench install                 # autocannon, once
//   node_modules/.bin/node bench/micro/server-cpu.mjs --builds .ab-before,dist --db bench/.data/diglot.db --workload W8
//
// Each build serves from its own copy of the SQLite file (or of the `--db postgres://…` database); the builds
// take turns, 10 connections of autocannon for `--seconds` each, `--rounds` times (the order flips every
// round), after a 2 s warm-up. Reported per build: the median over rounds of the server's CPU time
// (/proc/<pid>/stat, user + system) divided by the requests it answered. Unlike requests a second, this
// barely moves with the load generator's share of a 2-core machine. Linux only.
//
// `--builds` may also name the bench's hand-written servers, measured the same way beside a build:
// `lean` (servers/lean-rest.mjs: no ETag, JSON.stringify; W1, W3, W6), `hand` (servers/hand-rest.mjs),
// `mercurius` and `mercurius-batched` (servers/hand-graphql.mjs, per-parent or one-statement loaders; W4, W5).
// `--variants open,rules,member` serves each Diglot build as the bench's open schema, as the example with its
// @allow rules (anonymous requests), and with its rules to a member's HS256 JWT (`Authorization: Bearer`, the
// secret given as DIGLOT_JWT_SECRET): the authenticated workloads W1a and W4a of the bench.
//
// Workloads (the bench's, `lib/workloads.mjs`): W1 GET /users/<id>, W3 the newest 10 posts of a user,
// W4 the nested GraphQL query (POST), W5 50 users with 5 posts each (POST), W7 W1 revalidated (304), W8 W4 as a
// persisted GET, revalidated (304), W9 a user with 10 posts and 10 followers (`?include=`), W6 POST /users (a new
// user each request, as the bench's W6).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { adminUrl, createPgDatabase, databaseName, dropPgDatabase, writeOpenSchema } from '../lib/dataset.mjs';
import { PgBackends, untilSoleDiglotOn } from '../lib/measure.mjs';
import { JWT_SECRET, memberAuthorization } from '../lib/member-token.mjs';
import { UNMETERED } from '../lib/peers.mjs';

const root = resolve(import.meta.dirname, '../..');
const autocannon = createRequire(join(root, 'bench/package.json'))('autocannon');
const { values: options } = parseArgs({
  options: {
    builds: { type: 'string', default: 'dist' },
    db: { type: 'string', default: 'bench/.data/diglot.db' },
    workload: { type: 'string', default: 'W7' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '6' },
    variants: { type: 'string', default: 'open' },
  },
});
/** The bench's hand-written servers, by the name `--builds` gives them. */
const HAND_WRITTEN = {
  lean: { script: 'bench/servers/lean-rest.mjs', args: [], ready: '/users/1' },
  hand: { script: 'bench/servers/hand-rest.mjs', args: [], ready: '/users/1' },
  mercurius: { script: 'bench/servers/hand-graphql.mjs', args: [], ready: '/graphql?query={__typename}' },
  'mercurius-batched': { script: 'bench/servers/hand-graphql.mjs', args: ['--batched'], ready: '/graphql?query={__typename}' },
};
const member = memberAuthorization();
const W4 = 'query ($id: ID!) { user(id: $id) { name posts(first: 10) { title } followers(first: 10) { name } } }';
const W5 = '{ users(first: 50) { name posts(first: 5) { title } } }';
// The bench's 100 ids, spread over the 10,000 users.
const ids = Array.from({ length: 100 }, (_, i) => String(1 + i * 97));
const scratch = mkdtempSync(join(tmpdir(), 'diglot-server-cpu-'));

/** CPU time of a process so far, in µs (clock ticks of 10 ms). */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Each build gets a copy of the data of its own: on PostgreSQL a database
 * made from `--db` as a template, so that each server is the one Diglot on
 * its database and takes the writer lease, as a server alone does in
 * production (two on one database would both write with the lease's guard
 * and ask the database for every revalidation).
 */
async function copyOfData(port) {
  if (!options.db.startsWith('postgres')) {
    const file = join(scratch, `${port}.db`);
    copyFileSync(options.db, file);
    return file;
  }
  const url = new URL(options.db);
  // Short and fixed: PostgreSQL cuts a name at 63 bytes, which could make two copies one.
  url.pathname = `/diglot_ab_${port}`;
  await dropPgDatabase(url.href);
  await createPgDatabase(url.href, options.db);
  pgCopies.push(url.href);
  return url.href;
}

/** The URLs of the PostgreSQL copies made, dropped at the end. */
const pgCopies = [];

async function start(build, variant, port) {
  const db = await copyOfData(port);
  const hand = HAND_WRITTEN[build];
  const schema = variant === 'open' ? writeOpenSchema(root, mkdtempSync(join(tmpdir(), 'diglot-schema-'))) : join(root, 'examples/social/schema.graphql');
  const args =
    hand === undefined
      ? [join(root, build, 'cli/main.js'), 'serve', '--schema', schema, '--db', db, '--port', String(port), '--host', '127.0.0.1']
      : [join(root, hand.script), '--port', String(port), '--db', db, ...hand.args];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...UNMETERED, ...(variant === 'open' ? {} : { DIGLOT_JWT_SECRET: JWT_SECRET }) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await globalThis.fetch(`http://127.0.0.1:${port}${hand?.ready ?? '/users/1'}`);
      return { child, db };
    } catch {
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  await stop(child);
  throw new Error(`${build} did not start`);
}

/** Kills a server and waits until it is gone (before its database copy is dropped under it). */
function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise((done) => child.once('exit', done));
  child.kill();
  return gone;
}

/** The workload's requests, with a member's token for the `member` variant. */
async function requestsFor(origin, variant) {
  const requests = await anonymousRequestsFor(origin);
  return variant === 'member' ? requests.map((request) => ({ ...request, headers: { ...request.headers, ...member } })) : requests;
}

/** The workload's requests, with the ETags a revalidation sends fetched first. */
async function anonymousRequestsFor(origin) {
  const persisted = encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(W4).digest('hex') } }));
  const requests = [];
  for (const id of ids) {
    const variables = encodeURIComponent(JSON.stringify({ id }));
    switch (options.workload) {
      case 'W1':
        requests.push({ method: 'GET', path: `/users/${id}` });
        break;
      case 'W3':
        requests.push({ method: 'GET', path: `/users/${id}/posts?sort=-createdAt&limit=10` });
        break;
      case 'W4':
        requests.push({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: W4, variables: { id } }) });
        break;
      case 'W5':
        requests.push({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: W5 }) });
        break;
      case 'W9':
        requests.push({ method: 'GET', path: `/users/${id}?include=posts,followers&posts.limit=10&followers.limit=10` });
        break;
      case 'W6':
        if (requests.length === 0) requests.push(createUser(origin));
        break;
      case 'W7': {
        const response = await globalThis.fetch(`${origin}/users/${id}`);
        await response.text();
        requests.push({ method: 'GET', path: `/users/${id}`, headers: { 'if-none-match': response.headers.get('etag') } });
        break;
      }
      case 'W8': {
        const response = await globalThis.fetch(`${origin}/graphql?query=${encodeURIComponent(W4)}&variables=${variables}&extensions=${persisted}`, { headers: { accept: 'application/json' } });
        await response.text();
        requests.push({ method: 'GET', path: `/graphql?variables=${variables}&extensions=${persisted}`, headers: { accept: 'application/json', 'if-none-match': response.headers.get('etag') } });
        break;
      }
      default:
        throw new Error(`unknown workload ${options.workload} (W1, W3, W4, W5, W6, W7, W8, W9)`);
    }
  }
  return requests;
}

/** W6: a user with an email no other request (of any build or run) used. */
function createUser(origin) {
  const tag = `${Date.now().toString(36)}${origin.slice(-4)}`;
  let counter = 0;
  return {
    method: 'POST',
    path: '/users',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ name: 'Bench User', email: `ab.${tag}.${++counter}@example.com` }) }),
  };
}

const load = (server, seconds) =>
  new Promise((done, fail) =>
    autocannon({ url: `http://127.0.0.1:${server.port}`, connections: 10, duration: seconds, requests: server.requests }, (error, result) =>
      error ? fail(error) : done(result),
    ),
  );

const servers = [];
try {
  const variants = options.variants.split(',');
  const plan = options.builds.split(',').flatMap((build) => (build in HAND_WRITTEN ? [[build, 'open']] : variants.map((variant) => [build, variant])));
  for (const [index, [build, variant]] of plan.entries()) {
    const port = 7400 + index;
    const { child, db } = await start(build, variant, port);
    servers.push({ build: build in HAND_WRITTEN || variants.length === 1 ? build : `${build} (${variant})`, variant, hand: build in HAND_WRITTEN, port, child, db, rounds: [] });
  }
  // On PostgreSQL each server, alone on its copy, takes the writer lease: measure it with the lease.
  if (options.db.startsWith('postgres')) for (const server of servers) if (server.hand !== true) await untilSoleDiglotOn(server.db, root);
  // On PostgreSQL the backends serving each server are counted beside it: the database does part of every request's work.
  if (options.db.startsWith('postgres')) {
    for (const server of servers) {
      server.backends = new PgBackends(adminUrl(server.db), databaseName(server.db));
      await server.backends.open();
    }
  }
  const backendCpu = async (server) => {
    if (server.backends === undefined) return 0;
    let total = 0;
    for (const seconds of (await server.backends.snapshot(server.child.pid)).values()) total += seconds;
    return total * 1e6;
  };
  for (const server of servers) server.requests = await requestsFor(`http://127.0.0.1:${server.port}`, server.variant);
  for (const server of servers) await load(server, 2);
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
      const before = cpuOf(server.child.pid);
      const dbBefore = await backendCpu(server);
      const result = await load(server, Number(options.seconds));
      const dbAfter = await backendCpu(server);
      const answered = result.requests.total;
      // A revalidation answers 304 (autocannon counts it as not 2xx), everything else 200 (a create 201).
      const wrong = options.workload === 'W7' || options.workload === 'W8' ? answered - result.non2xx : result.non2xx;
      if (result.errors > 0 || wrong > 0) throw new Error(`${server.build}: ${result.errors} errors, ${wrong} answers with an unexpected status`);
      // A backend that left during the round is not counted (the pool keeps its connections under load).
      server.rounds.push({ cpu: (cpuOf(server.child.pid) - before) / answered, db: (dbAfter - dbBefore) / answered, perSecond: answered / Number(options.seconds) });
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  for (const server of servers) {
    const cpu = server.rounds.map((r) => r.cpu);
    const db = server.backends === undefined ? '' : `, ${median(server.rounds.map((r) => r.db)).toFixed(1)} µs PostgreSQL backends' CPU a request (server + backends: ${median(server.rounds.map((r) => r.cpu + r.db)).toFixed(1)})`;
    console.log(
      `${server.build}: ${median(cpu).toFixed(1)} µs server CPU a request (rounds: ${cpu.map((v) => v.toFixed(1)).join(' ')})${db}, ${Math.round(median(server.rounds.map((r) => r.perSecond)))} requests a second`,
    );
  }
} finally {
  for (const server of servers) await server.backends?.close();
  await Promise.all(servers.map((server) => stop(server.child)));
  rmSync(scratch, { recursive: true, force: true });
  for (const copy of pgCopies) await dropPgDatabase(copy).catch((error) => console.error(`could not drop ${databaseName(copy)}: ${error.message}`));
}
