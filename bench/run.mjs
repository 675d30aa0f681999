// npm run bench [-- --quick] [-- --workloads W1,W4] [-- --peers diglot-sqlite,fastify-sqlite] [-- --profile]
//
// Builds the data set, starts every peer as its own process on 127.0.0.1,
// checks each one answers each workload as expected, warms them up, then runs
// the repetitions — every peer of a workload one after the other, in a
// rotated order, so noise on this shared machine falls on all of them alike —
// and prints the markdown report (also written to bench/results/).
// Every process it starts is stopped at the end, on errors and on Ctrl-C.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminUrl, buildDataset, databaseName, dropPgDatabase, pgAvailable, withAdmin } from './lib/dataset.mjs';
import { measure, PgBackends, untilSoleDiglot, warmUp } from './lib/measure.mjs';
import { diglotNodeFlags, launchSpec, PEERS, peerByName, sqliteFileOf } from './lib/peers.mjs';
import { machine, memory } from './lib/proc-stats.mjs';
import { freePort, ProcessSet } from './lib/processes.mjs';
import { profile } from './lib/profile.mjs';
import { evaluateTargets, markdown, PG_YARDSTICK, TARGETS, YARDSTICK } from './lib/report.mjs';
import { memberAuthorization, MEMBER } from './lib/member-token.mjs';
import { W4_QUERY, W5_QUERY, WORKLOADS } from './lib/workloads.mjs';
import { runCluster } from './lib/cluster.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    reps: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '10' },
    workloads: { type: 'string' },
    peers: { type: 'string' },
    pg: { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/diglot_bench' },
    'no-pg': { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    cluster: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(`Usage: npm run bench -- [options]
  --quick              2 short repetitions (the whole run in under 3 minutes)
  --cluster            W1, W4 and W6 on Diglot/PostgreSQL: directly, through HAProxy, and through HAProxy to two instances
  --reps N             repetitions (default 3; quick 2)
  --duration S         seconds per measured run (default 10; quick 1)
  --warmup S           seconds of warm-up per peer and workload (default 3; quick 0.3)
  --connections N      concurrent connections (default 10)
  --workloads W1,W4    only these workloads (W0–W10; W1a and W4a: W1 and W4 under the example's rules, anonymous and as a member with a JWT)
  --peers a,b          only these peers (${PEERS.map((peer) => peer.name).join(', ')})
  --pg URL             PostgreSQL database to create and drop (default postgres://postgres@127.0.0.1:5432/diglot_bench, or BENCH_PG_URL)
  --no-pg              skip every PostgreSQL peer
  --keep-db            do not drop the PostgreSQL database at the end
  --profile            instead of the comparison: CPU profiles of Diglot (SQLite) and its yardstick under W1, W4 and W7 (or --workloads), summarised;
                       with --peers, of those peers instead (diglot-pg,fastify-pg profiles Diglot on PostgreSQL beside its yardstick)
`);
  process.exit(0);
}

const quick = args.quick;
const config = {
  quick,
  reps: Number(args.reps ?? (quick ? 2 : 3)),
  duration: Number(args.duration ?? (quick ? 1 : 10)),
  warmup: Number(args.warmup ?? (quick ? 0.3 : 3)),
  connections: Number(args.connections),
};
const dataDir = join(benchDir, '.data');
const began = Date.now();
/** Progress on stderr, each line with the seconds since the start. */
const log = (line) => process.stderr.write(`[${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

const processes = new ProcessSet();
let pgUrl = args['no-pg'] ? undefined : args.pg;
let pgCreated = false;
let pgMissing;
let backends;
let cleaning;

async function cleanup() {
  cleaning ??= (async () => {
    await processes.stopAll();
    await backends?.close();
    if (pgCreated && !args['keep-db']) await dropPgDatabase(pgUrl).catch((error) => log(`could not drop ${databaseName(pgUrl)}: ${error.message}`));
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the servers`);
    void cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', () => processes.killAllNow());

function checkBuild() {
  const cli = join(root, 'dist/cli/main.js');
  if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm install` (or `npm run build`) in the repository root first');
  const built = statSync(cli).mtimeMs;
  const newer = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && statSync(path).mtimeMs > built) newer.push(path);
    }
  };
  walk(join(root, 'src'));
  if (newer.length > 0) log(`warning: ${newer.length} file(s) in src/ are newer than dist/ (e.g. ${newer[0].slice(root.length + 1)}): run \`npm run build\` to measure the current code`);
}

async function environment() {
  let postgres;
  if (pgUrl !== undefined) {
    postgres = await withAdmin(pgUrl, async (client) => (await client.query('SHOW server_version')).rows[0].server_version);
  }
  let os = `Linux ${release()}`;
  try {
    os = /^PRETTY_NAME="?([^"\n]+)/m.exec(execFileSync('cat', ['/etc/os-release'], { encoding: 'utf8' }))?.[1] ?? os;
  } catch {
    // keep the kernel release
  }
  let commit = 'unknown commit';
  try {
    const git = (...gitArgs) => execFileSync('git', gitArgs, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--', 'src', 'examples') === '' ? '' : ' + uncommitted changes');
  } catch {
    // not a git checkout
  }
  return { date: new Date().toISOString().slice(0, 19).replace('T', ' ') + ' UTC', commit, node: process.versions.node, cpu: machine(), cores: cpus().length, os, postgres };
}

/** A small HTTP client for set-up and checks (never used for measuring). */
function client(origin) {
  return async ({ method = 'GET', path, headers = {}, body }) => {
    const response = await globalThis.fetch(origin + path, { method, headers, body, signal: globalThis.AbortSignal.timeout(30_000) });
    const bytes = Buffer.from(await response.arrayBuffer());
    let json;
    try {
      json = JSON.parse(bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, bytes, json };
  };
}

/**
 * A second complete run on the same day and kind of machine would overwrite
 * the first: the first is renamed after its commit (`…-at-<commit>`), so the
 * plain name is always the latest run.
 */
function keepEarlierRun(base) {
  if (!existsSync(`${base}.json`)) return;
  let commit = 'earlier';
  try {
    commit = JSON.parse(readFileSync(`${base}.json`, 'utf8')).env.commit.split(' ')[0];
  } catch {
    // unreadable: still kept, under a name that says it is older
  }
  for (const extension of ['md', 'json']) {
    if (existsSync(`${base}.${extension}`) && !existsSync(`${base}-at-${commit}.${extension}`)) renameSync(`${base}.${extension}`, `${base}-at-${commit}.${extension}`);
  }
}

/** 100 user ids spread over the whole range, the same on every run. */
function sampleIds(count, max) {
  const ids = new Set();
  let state = 12345;
  while (ids.size < count) {
    state = (state * 1103515245 + 12345) % 2147483648;
    ids.add(String(1 + (state % max)));
  }
  return [...ids];
}

async function main() {
  checkBuild();
  if (pgUrl !== undefined && !(await pgAvailable(pgUrl))) {
    log(`PostgreSQL does not answer at ${new URL(pgUrl).host}: the PostgreSQL peers are skipped`);
    pgMissing = `PostgreSQL did not answer at ${new URL(pgUrl).host}: the PostgreSQL peers did not run.`;
    pgUrl = undefined;
  }
  const env = await environment();

  if (args.profile) {
    const peers = args.peers?.split(',').map((peer) => peer.trim());
    const profilePg = pgUrl !== undefined && peers?.some((name) => peerByName.get(name)?.db === 'pg') === true;
    pgCreated = profilePg;
    await profile({
      root,
      benchDir,
      dataDir,
      processes,
      log,
      env,
      pgUrl: profilePg ? pgUrl : undefined,
      config: { ...config, peers, workloads: args.workloads?.split(',').map((w) => WORKLOADS.find((workload) => workload.id.toUpperCase() === w.trim().toUpperCase())?.id ?? w.trim()), duration: Number(args.duration ?? 10), warmup: Number(args.warmup ?? 2) },
    });
    return;
  }

  // --cluster: Diglot on PostgreSQL, directly and behind HAProxy with one and two instances (bench/lib/cluster.mjs).
  const wanted = args.cluster ? ['W1', 'W4', 'W6'] : args.workloads?.split(',').map((w) => w.trim().toUpperCase());
  const workloads = WORKLOADS.filter((w) => wanted === undefined || wanted.includes(w.id.toUpperCase()));
  const peerFilter = args.cluster ? ['diglot-pg'] : args.peers?.split(',').map((peer) => peer.trim());
  const peerWanted = (name) => (peerFilter === undefined || peerFilter.includes(name)) && (pgUrl !== undefined || peerByName.get(name)?.db !== 'pg');
  // Quick runs keep only the peers a target compares (and each workload's yardstick); the others are context.
  const forTargets = (workload, name) =>
    (workload.id === 'W0' && name === 'node-http') || name.startsWith('diglot-') || YARDSTICK[workload.id] === name || PG_YARDSTICK[workload.id] === name || TARGETS.some((t) => t.w === workload.id && (t.num === name || t.den === name));
  const peersOf = (workload) => Object.keys(workload.peers).filter((name) => peerWanted(name) && (!quick || peerFilter !== undefined || forTargets(workload, name)));
  const needed = PEERS.map((peer) => peer.name).filter((name) => workloads.some((workload) => peersOf(workload).includes(name)));

  log(`Data set (deterministic): building under ${dataDir.slice(root.length + 1)}/`);
  if (!needed.some((name) => peerByName.get(name).db === 'pg')) pgUrl = undefined;
  const dataset = await buildDataset({ root, dataDir, pgUrl, log, jsonServer: needed.includes('json-server') });
  pgCreated = pgUrl !== undefined;
  if (pgUrl !== undefined) {
    backends = new PgBackends(adminUrl(pgUrl), databaseName(pgUrl));
    await backends.open();
  }

  log(`Starting ${needed.length} servers`);
  const diglotFlags = await diglotNodeFlags(root);
  const servers = new Map();
  const idle = {};
  await Promise.all(
    needed.map(async (name) => {
      const port = await freePort();
      const spec = launchSpec(name, { root, benchDir, dataset, dataDir, port, diglotFlags });
      servers.set(name, await processes.start({ name, port, ...spec }));
    }),
  );
  await sleep(1000);
  for (const [name, server] of servers) idle[name] = memory(server.pid).rssMiB;

  const notes = [];
  const skips = [];
  const ids = sampleIds(100, 10_000);
  const contextOf = (name) => {
    const server = servers.get(name);
    return server === undefined ? undefined : { ids, call: client(server.origin), filesDir: dataset.filesDir, other: contextOf };
  };

  log('Preparing and checking each workload on each peer');
  const plan = [];
  for (const workload of workloads) {
    for (const name of peersOf(workload)) {
      try {
        const spec = await workload.peers[name](contextOf(name));
        if (spec.skip !== undefined) {
          skips.push({ workload: workload.id, peer: name, reason: spec.skip });
          continue;
        }
        // A write's check creates records: it runs when the writes' turn comes (below), not before the reads.
        const problem = workload.write === true ? undefined : await check(contextOf(name), spec);
        if (problem !== undefined) {
          skips.push({ workload: workload.id, peer: name, reason: problem });
          continue;
        }
        if (spec.note !== undefined) notes.push(`${workload.id}, ${peerByName.get(name).label}: ${spec.note}`);
        plan.push({ workload, name, spec });
      } catch (error) {
        skips.push({ workload: workload.id, peer: name, reason: `set-up failed: ${error.message}` });
      }
    }
  }
  // A workload where only the fixed-body servers are left (W10 without pictures) has nothing to compare.
  for (const workload of workloads) {
    const entries = plan.filter((entry) => entry.workload === workload);
    if (workload.id !== 'W0' && entries.length > 0 && entries.every((entry) => peerByName.get(entry.name).db === 'none')) {
      for (const entry of entries) plan.splice(plan.indexOf(entry), 1);
    }
  }
  notes.push(...(await compareAnswers(contextOf, ids[0], workloads)));

  if (args.cluster) {
    await untilSoleDiglot(backends, root);
    const startSecond = async () => {
      const port = await freePort();
      const server = await processes.start({ name: 'diglot-pg-2', port, ...launchSpec('diglot-pg', { root, benchDir, dataset, dataDir, port, diglotFlags }) });
      return { origin: server.origin, pid: server.pid, stop: () => processes.stop('diglot-pg-2') };
    };
    const table = await runCluster({ first: servers.get('diglot-pg'), startSecond, plan, config, log });
    const report = `# Diglot behind HAProxy: one and two instances on PostgreSQL\n\n${env.date} · ${env.cpu} · Node ${env.node} · PostgreSQL ${env.postgres ?? '?'}\n\n${table}\n`;
    process.stdout.write(`${report}\n`);
    mkdirSync(join(benchDir, 'results'), { recursive: true });
    writeFileSync(join(benchDir, 'results', `${env.date.slice(0, 10)}-cluster.md`), report);
    return;
  }

  const total = plan.length * (config.warmup + config.reps * config.duration);
  log(`Warm-up, then ${config.reps} repetitions of ${plan.length} runs (about ${Math.ceil(total / 60)} min)`);
  // Writes are checked and warmed up when their phase begins: records created earlier would change what
  // the reads return on Diglot's copy and not on the peers' that do not write (the hand-written peers
  // order ids as text, where Diglot's generated ids sort before the seeded ones: their users(first: 50)
  // would list 50 new users without posts).
  const warm = async (entries) => {
    for (const { name, spec } of entries) {
      await warmUp({ origin: servers.get(name).origin, requests: spec.requests, seconds: config.warmup, connections: config.connections });
    }
  };
  await warm(plan.filter((entry) => entry.workload.write !== true));
  const startWrites = async () => {
    for (const entry of plan.filter((candidate) => candidate.workload.write === true)) {
      const problem = await check(contextOf(entry.name), entry.spec);
      if (problem === undefined) continue;
      skips.push({ workload: entry.workload.id, peer: entry.name, reason: problem });
      plan.splice(plan.indexOf(entry), 1);
    }
    notes.push(...(await compareCreates(contextOf, workloads)));
    await warm(plan.filter((entry) => entry.workload.write === true));
  };

  const runs = [];
  // The largest WAL file each SQLite server had after a write run. A server
  // that never checkpoints writes faster until its disk fills (the
  // hand-written one did, by accident, until 2026-11-24): the report says
  // how far each let its WAL grow.
  const walPeak = new Map();
  // Writes come last: the users they create would otherwise change what later reads return
  // (see the warm-up above).
  const phases = [workloads.filter((workload) => workload.write !== true), workloads.filter((workload) => workload.write === true)];
  for (const phase of phases) for (let rep = 1; rep <= config.reps; rep++) {
    if (rep === 1 && phase === phases[1] && phase.length > 0) await startWrites();
    for (const workload of phase) {
      const entries = plan.filter((entry) => entry.workload === workload);
      // Rotate the order each repetition: no peer always runs first (or right after a write-heavy one).
      const rotated = entries.map((_, i) => entries[(i + rep - 1) % entries.length]);
      for (const { name, spec } of rotated) {
        const server = servers.get(name);
        if (!server.alive()) throw new Error(`${name} has stopped:\n${server.output()}`);
        if (name === 'diglot-pg') await untilSoleDiglot(backends, root);
        const metrics = await measure({ server, peer: peerByName.get(name), spec, seconds: config.duration, connections: config.connections, backends });
        runs.push({ rep, workload: workload.id, peer: name, metrics });
        const file = sqliteFileOf(name, dataset);
        if (workload.write === true && file !== undefined && existsSync(`${file}-wal`)) {
          walPeak.set(name, Math.max(walPeak.get(name) ?? 0, statSync(`${file}-wal`).size));
        }
        log(`  rep ${rep} ${workload.id.padEnd(3)} ${name.padEnd(16)} ${Math.round(metrics.opsPerSecond).toString().padStart(6)} ops/s  p99 ${metrics.p99} ms${metrics.unexpected > 0 ? `  (${metrics.unexpected} unexpected responses)` : ''}`);
      }
    }
  }

  const targets = evaluateTargets(runs, idle);
  const shownWorkloads = workloads.map((workload) => ({
    ...workload,
    peers: Object.fromEntries(peersOf(workload).map((name) => [name, true])),
    expectOf: (name) => String(plan.find((entry) => entry.workload === workload && entry.name === name)?.spec.expect ?? 200),
  }));
  if (walPeak.size > 0) {
    const sizes = [...walPeak].map(([name, bytes]) => `${peerByName.get(name).label} ${(bytes / 2 ** 20).toFixed(1)} MiB`);
    notes.push(`Largest WAL file after a write run (a server that stops checkpointing would show hundreds of MiB): ${sizes.join(' · ')}`);
  }
  if (pgMissing !== undefined) notes.push(pgMissing);
  notes.push('SQL/op counts what each server process sent to its database driver (bench/lib/count-statements.mjs, preloaded into every server, Diglot\'s CLI included); json-server has no database.');
  const report = markdown({ env, config, workloads: shownWorkloads, runs, skips, notes, idle, targets });
  process.stdout.write(`${report}\n`);

  const resultsDir = join(benchDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const cpuSlug = env.cpu.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  // A run of some workloads or peers only must not overwrite the last complete one.
  const partial = args.workloads !== undefined || args.peers !== undefined || args.reps !== undefined || args.duration !== undefined;
  const name = `${env.date.slice(0, 10)}-node${env.node}-${cpuSlug}${quick ? '-quick' : ''}${partial ? '-partial' : ''}`;
  const base = join(resultsDir, name);
  if (!partial && !quick) keepEarlierRun(base);
  writeFileSync(`${base}.md`, `${report}\n`);
  writeFileSync(`${base}.json`, `${JSON.stringify({ env, config, idle, skips, notes, targets, runs }, null, 2)}\n`);
  log(`Written: ${base.slice(root.length + 1)}.md and .json`);
}

/** A few requests of the sequence, one at a time: each must answer with the expected status. */
async function check(ctx, spec) {
  const expect = spec.expect ?? 200;
  const sample = spec.requests.slice(0, 3);
  for (const request of sample) {
    const prepared = request.setupRequest === undefined ? request : request.setupRequest({ ...request }, {});
    const { status, bytes } = await ctx.call(prepared);
    if (status !== expect) return `answered ${status} (expected ${expect}) to ${prepared.method} ${prepared.path}: ${bytes.toString('utf8').slice(0, 200)}`;
  }
  return undefined;
}

/** The keys whose values differ between two answers (compared as JSON), `ignore` left out. */
function differingKeys(expected, actual, ignore = []) {
  return Object.keys({ ...expected, ...actual }).filter((key) => !ignore.includes(key) && JSON.stringify(expected?.[key]) !== JSON.stringify(actual?.[key]));
}

/**
 * The peers must give the same answer to the same question: differences are
 * reported, not hidden. W1 (a user), W3 (the posts page; cursors are opaque,
 * so only their presence is compared), W4 and W5 (the GraphQL data of
 * the mercurius peers against Diglot's), and, under the rules, that a
 * stranger gets no e-mail address and the member gets their own.
 */
async function compareAnswers(contextOf, id, workloads) {
  const ran = (w) => workloads.some((workload) => workload.id === w);
  const reference = contextOf('diglot-sqlite');
  if (reference === undefined) return [];
  const notes = [];
  const label = (name) => peerByName.get(name).label;
  const restPeers = ['diglot-pg', 'fastify-sqlite', 'fastify-pg', 'lean-sqlite', 'lean-pg', 'json-server'];
  if (ran('W1') || ran('W1a')) {
    const path = `/users/${id}`;
    const expected = (await reference.call({ path })).json;
    for (const name of restPeers) {
      const ctx = contextOf(name);
      if (ctx === undefined) continue;
      const differing = differingKeys(expected, (await ctx.call({ path })).json);
      if (differing.length > 0) notes.push(`W1: ${label(name)} answers ${path} differently from Diglot (SQLite) in: ${differing.join(', ')}`);
    }
  }
  if (ran('W3')) {
    const path = `/users/${id}/posts?sort=-createdAt&limit=10`;
    const expected = (await reference.call({ path })).json;
    for (const name of restPeers.filter((peer) => peer !== 'json-server')) {
      const ctx = contextOf(name);
      if (ctx === undefined) continue;
      const actual = (await ctx.call({ path })).json;
      const differing = differingKeys(expected, actual, ['nextCursor', 'prevCursor']);
      if (typeof expected?.nextCursor !== typeof actual?.nextCursor) differing.push('nextCursor');
      if (differing.length > 0) notes.push(`W3: ${label(name)} answers ${path} differently from Diglot (SQLite) in: ${differing.join(', ')}`);
    }
  }
  for (const [w, query, variables] of [
    ['W4', W4_QUERY, { id }],
    ['W5', W5_QUERY, undefined],
  ]) {
    if (!ran(w)) continue;
    const ask = async (ctx) => (await ctx.call({ method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).json;
    const expected = await ask(reference);
    for (const name of ['mercurius-sqlite', 'mercurius-batched-sqlite', 'mercurius-pg', 'diglot-pg']) {
      const ctx = contextOf(name);
      if (ctx === undefined) continue;
      const actual = await ask(ctx);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) notes.push(`${w}: ${label(name)} answers differently from Diglot (SQLite): ${JSON.stringify(actual).slice(0, 200)}`);
    }
  }
  if (ran('W1a')) {
    const stranger = (await contextOf('diglot-rules-sqlite')?.call({ path: `/users/${MEMBER.id}` }))?.json;
    const member = (await contextOf('diglot-member-sqlite')?.call({ path: `/users/${MEMBER.id}`, headers: memberAuthorization() }))?.json;
    if (stranger !== undefined && 'email' in stranger) notes.push('W1a: under the rules, an anonymous caller was given an e-mail address: the rules are not in force');
    if (member !== undefined && !('email' in member)) notes.push("W1a: the member's own record came without their e-mail address: the token was not taken");
  }
  return notes;
}

/** W6: the record a create answers with, the same in Diglot and the hand-written servers (but for id, e-mail and timestamps). Run when the writes begin. */
async function compareCreates(contextOf, workloads) {
  if (!workloads.some((workload) => workload.id === 'W6')) return [];
  const reference = contextOf('diglot-sqlite');
  if (reference === undefined) return [];
  const notes = [];
  const create = (ctx, tag) =>
    ctx.call({ method: 'POST', path: '/users', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Compared User', email: `compared.${tag}.${Date.now()}@example.com`, bio: 'Same answer?' }) });
  const expected = (await create(reference, 'diglot')).json;
  for (const name of ['fastify-sqlite', 'fastify-pg', 'lean-sqlite', 'lean-pg']) {
    const ctx = contextOf(name);
    if (ctx === undefined) continue;
    const differing = differingKeys(expected, (await create(ctx, name.replace(/[^a-z]/g, ''))).json, ['id', 'email', 'createdAt', 'updatedAt']);
    if (differing.length > 0) notes.push(`W6: ${peerByName.get(name).label} answers POST /users differently from Diglot (SQLite) in: ${differing.join(', ')}`);
  }
  return notes;
}

try {
  await main();
} catch (error) {
  log(`bench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
