// Turning runs into figures: medians over repetitions, ratios computed within
// each repetition (then their median, so a noisy stretch of the machine hits
// both sides of a ratio alike), the targets of bench/README.md, and the
// markdown and JSON the run writes.

import { peerByName } from './peers.mjs';

/** The peer each workload's ratio column is relative to. */
export const YARDSTICK = {
  W1: 'fastify-sqlite',
  W2: 'fastify-sqlite',
  W3: 'fastify-sqlite',
  W4: 'mercurius-sqlite',
  W5: 'mercurius-sqlite',
  W6: 'fastify-sqlite',
  W7: 'node-http',
  W8: 'node-http',
  W9: 'fastify-sqlite',
  W10: 'node-http',
  W1a: 'diglot-sqlite',
  W4a: 'diglot-sqlite',
};

/**
 * On PostgreSQL a Diglot figure is compared with the tools a user would pick
 * instead on the same database, in the same run: hand-written Fastify + pg
 * for REST, PostGraphile for nested GraphQL, the node:http ceiling for 304s.
 */
export const PG_YARDSTICK = {
  W1: 'fastify-pg',
  W2: 'fastify-pg',
  W3: 'fastify-pg',
  W4: 'postgraphile',
  W5: 'postgraphile',
  W6: 'fastify-pg',
  W7: 'node-http',
  W8: 'node-http',
  W9: 'fastify-pg',
  W10: 'node-http',
};

/** The peer `peer`'s ratio column is relative to under workload `w`. */
export function yardstickOf(w, peer) {
  return peerByName.get(peer)?.db === 'pg' && PG_YARDSTICK[w] !== undefined ? PG_YARDSTICK[w] : YARDSTICK[w];
}

const isYardstick = (w, peer) => YARDSTICK[w] === peer || PG_YARDSTICK[w] === peer;

const READS = ['W1', 'W2', 'W3', 'W4', 'W5', 'W9'];

/** The targets of the issue (bench/README.md), each a comparison the runs can answer. */
export const TARGETS = [
  ...['W1', 'W2', 'W3'].map((w) => ({ group: 'REST reads ≥ 1.0× hand-written Fastify + better-sqlite3', w, num: 'diglot-sqlite', den: 'fastify-sqlite', min: 1 })),
  { group: 'writes ≥ 0.8× hand-written', w: 'W6', num: 'diglot-sqlite', den: 'fastify-sqlite', min: 0.8 },
  { group: 'writes ≥ 0.8× hand-written', w: 'W6', num: 'diglot-pg', den: 'fastify-pg', min: 0.8 },
  ...['W4', 'W5'].map((w) => ({ group: 'nested GraphQL ≥ 3× hand-written mercurius + loaders', w, num: 'diglot-sqlite', den: 'mercurius-sqlite', min: 3 })),
  ...['W4', 'W5'].flatMap((w) => [
    { group: 'nested GraphQL ≥ 2.5× PostGraphile 5 (req/s)', w, num: 'diglot-sqlite', den: 'postgraphile', min: 2.5 },
    { group: 'nested GraphQL ≥ 2.5× PostGraphile 5 (req/s)', w, num: 'diglot-pg', den: 'postgraphile', min: 2.5 },
    { group: 'nested GraphQL ≥ 4× PostGraphile 5 per CPU-second (server + database)', w, num: 'diglot-sqlite', den: 'postgraphile', min: 4, metric: 'opsPerCpuSecond' },
    { group: 'nested GraphQL ≥ 4× PostGraphile 5 per CPU-second (server + database)', w, num: 'diglot-pg', den: 'postgraphile', min: 4, metric: 'opsPerCpuSecond' },
  ]),
  ...['W7', 'W8'].flatMap((w) => [
    { group: 'revalidation (304) ≥ 0.6× the node:http ceiling', w, num: 'diglot-sqlite', den: 'node-http', min: 0.6 },
    { group: 'revalidation (304) ≥ 0.6× the node:http ceiling', w, num: 'diglot-pg', den: 'node-http', min: 0.6 },
  ]),
  // Issue 37: on PostgreSQL as on SQLite, with the limits on.
  ...['diglot-sqlite', 'diglot-pg'].map((num) => ({ group: 'revalidation (304) ≥ 0.7× the node:http ceiling (issue 37)', w: 'W7', num, den: 'node-http', min: 0.7 })),
  { group: 'REST include ≥ 2× the same data as three hand-written requests', w: 'W9', num: 'diglot-sqlite', den: 'fastify-sqlite', min: 2 },
  { group: 'REST include ≥ 2× the same data as three hand-written requests', w: 'W9', num: 'diglot-pg', den: 'fastify-pg', min: 2 },
  ...['W1', 'W2', 'W3'].map((w) => ({ group: 'PostgreSQL mode ≥ 1.0× hand-written Fastify + pg', w, num: 'diglot-pg', den: 'fastify-pg', min: 1 })),
  // Issue 28: against the leanest competent servers (no ETag, JSON.stringify; loaders batching each level into one statement).
  ...['W1', 'W3'].map((w) => ({ group: 'REST reads ≥ 1.0× the lean Fastify (no ETag)', w, num: 'diglot-sqlite', den: 'lean-sqlite', min: 1 })),
  { group: 'REST reads ≥ 1.0× the lean Fastify (no ETag)', w: 'W1', num: 'diglot-pg', den: 'lean-pg', min: 1 },
  { group: 'writes ≥ 0.8× the lean Fastify', w: 'W6', num: 'diglot-sqlite', den: 'lean-sqlite', min: 0.8 },
  { group: 'writes ≥ 0.8× the lean Fastify', w: 'W6', num: 'diglot-pg', den: 'lean-pg', min: 0.8 },
  ...['W4', 'W5'].map((w) => ({ group: 'nested GraphQL ≥ 3× mercurius with one statement per level', w, num: 'diglot-sqlite', den: 'mercurius-batched-sqlite', min: 3 })),
  // Issue 27: being signed in and filtered by the rules costs at most 10% (requests a second, SQLite).
  ...['W1a', 'W4a'].flatMap((w) => [
    { group: "a member's JWT under the rules ≥ 0.9× anonymous on the open schema", w, num: 'diglot-member-sqlite', den: 'diglot-sqlite', min: 0.9 },
    { group: "a member's JWT under the rules ≥ 0.9× anonymous under the rules", w, num: 'diglot-member-sqlite', den: 'diglot-rules-sqlite', min: 0.9 },
  ]),
  ...['W4', 'W5'].map((w) => ({ group: 'PostgreSQL mode ≥ 1.0× hand-written Fastify + pg', w, num: 'diglot-pg', den: 'mercurius-pg', min: 1 })),
];

export function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const runsOf = (runs, w, peer) => runs.filter((run) => run.workload === w && run.peer === peer);

/** The median over repetitions of num/den, each ratio taken within one repetition. */
export function ratio(runs, w, num, den, metric = 'opsPerSecond') {
  const perRep = [];
  for (const a of runsOf(runs, w, num)) {
    const b = runsOf(runs, w, den).find((run) => run.rep === a.rep);
    if (b !== undefined && b.metrics[metric] > 0) perRep.push(a.metrics[metric] / b.metrics[metric]);
  }
  return { median: median(perRep), perRep };
}

export function summarize(runs, w, peer) {
  const list = runsOf(runs, w, peer);
  if (list.length === 0) return undefined;
  const m = (key) => median(list.map((run) => run.metrics[key] ?? NaN));
  const yardstick = yardstickOf(w, peer);
  return {
    opsPerSecond: m('opsPerSecond'),
    opsPerCpuSecond: m('opsPerCpuSecond'),
    serverCpuPerOp: m('serverCpuPerOp'),
    dbCpuPerOp: m('dbCpuPerOp'),
    p50: m('p50'),
    p99: m('p99'),
    peakMiB: Math.max(...list.map((run) => run.metrics.peakMiB)),
    statementsPerOp: m('statementsPerOp'),
    unexpected: list.reduce((sum, run) => sum + run.metrics.unexpected, 0),
    responses: list.reduce((sum, run) => sum + run.metrics.responses, 0),
    ratio: yardstick === undefined || yardstick === peer ? undefined : ratio(runs, w, peer, yardstick).median,
    reps: list.length,
  };
}

export function evaluateTargets(runs, idle) {
  const ran = new Set(runs.map((run) => run.workload));
  const rows = TARGETS.filter((target) => ran.has(target.w)).map((target) => {
    const { median: value, perRep } = ratio(runs, target.w, target.num, target.den, target.metric);
    return { ...target, value, perRep, met: Number.isFinite(value) ? value >= target.min : undefined };
  });
  for (const peer of ['diglot-sqlite', 'diglot-pg']) {
    for (const w of READS.filter((read) => ran.has(read))) {
      const s = summarize(runs, w, peer);
      const value = s?.statementsPerOp;
      rows.push({ group: 'every read: exactly 1 SQL statement per request', w, num: peer, value, min: 1, exact: true, met: value === undefined || value === null || !Number.isFinite(value) ? undefined : Math.abs(value - 1) < 0.02 });
    }
    const rss = idle[peer];
    rows.push({ group: 'memory: idle RSS ≤ 100 MiB', w: '—', num: peer, value: rss, max: 100, unit: 'MiB', met: rss === undefined ? undefined : rss <= 100 });
    const peak = summarize(runs, 'W5', peer)?.peakMiB;
    if (ran.has('W5')) rows.push({ group: 'memory: peak RSS under W5 ≤ 250 MiB', w: 'W5', num: peer, value: peak, max: 250, unit: 'MiB', met: peak === undefined || !Number.isFinite(peak) ? undefined : peak <= 250 });
  }
  return rows;
}

const fmt = {
  int: (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en') : '—'),
  // autocannon records whole milliseconds: 0 means under one.
  ms: (value) => (!Number.isFinite(value) ? '—' : value < 1 ? '<1' : String(Math.round(value * 10) / 10)),
  ratio: (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '—'),
  sql: (value) => (value === null || value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(2)),
};

function targetCell(row) {
  if (row.unit === 'MiB') return Number.isFinite(row.value) ? `${Math.round(row.value)} MiB` : '—';
  if (row.exact) return fmt.sql(row.value);
  return fmt.ratio(row.value);
}

function verdict(row) {
  if (row.met === undefined) return 'n/a';
  if (row.met) return 'met';
  if (row.unit === 'MiB') return `**not met** (${Math.round(row.value - row.max)} MiB over)`;
  if (row.exact) return '**not met**';
  return `**not met** (${Math.round((1 - row.value / row.min) * 100)}% short)`;
}

/** The markdown report: context, one table per workload, the targets table, notes. */
export function markdown({ env, config, workloads, runs, skips, notes, idle, targets }) {
  const out = [];
  out.push(`# Diglot benchmark — ${env.date}`, '');
  out.push(
    `Diglot ${env.commit} · Node ${env.node} · ${env.cpu} (${env.cores} cores) · ${env.os} · PostgreSQL ${env.postgres ?? 'not available'} · ` +
      `${config.quick ? 'quick run' : 'full run'}: ${config.reps} repetitions × ${config.duration}s per peer and workload (after ${config.warmup}s warm-up), ` +
      `${config.connections} connections, autocannon on loopback.`,
    '',
  );
  out.push(
    'ops/s: median over repetitions (an op is one request, except the hand-written W9: three). ' +
      '× yardstick: the ratio to the workload\'s yardstick (in bold) taken within each repetition, then the median. ' +
      'On PostgreSQL the ratio is to Fastify + pg (REST), PostGraphile (W4, W5) or node:http (304s), measured in the same run. ' +
      'ops per CPU-s: operations per second of server CPU plus, on PostgreSQL, the CPU of the backends serving that server (found by its connections\' ports); ' +
      'CPU µs/op: its inverse, then the server\'s and the database\'s shares of it. ' +
      'p50/p99: autocannon\'s latency percentiles in whole milliseconds. Peak RSS: the server\'s VmHWM during the run. SQL/op: statements the server sent per operation.',
    '',
  );
  for (const workload of workloads) {
    const peers = Object.keys(workload.peers);
    const rows = peers.map((peer) => ({ peer, s: summarize(runs, workload.id, peer) })).filter((row) => row.s !== undefined);
    const skipped = skips.filter((skip) => skip.workload === workload.id);
    if (rows.length === 0 && skipped.length === 0) continue;
    out.push(`### ${workload.id} — ${workload.title}`, '');
    if (rows.length > 0) {
      out.push(
        '| Peer | ops/s | × yardstick | ops per CPU-s | CPU µs/op | server µs/op | database µs/op | p50 ms | p99 ms | peak RSS MiB | SQL/op |',
        '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      );
      for (const { peer, s } of rows) {
        const label = peerByName.get(peer)?.label ?? peer;
        const name = isYardstick(workload.id, peer) ? `**${label}**` : label;
        const database = peerByName.get(peer)?.db === 'pg' ? fmt.int(s.dbCpuPerOp * 1e6) : '—';
        const flag = s.unexpected > 0 ? ` ⚠ ${s.unexpected} of ${s.responses} responses not ${workload.expectOf?.(peer) ?? 'as expected'}` : '';
        out.push(
          `| ${name}${flag} | ${fmt.int(s.opsPerSecond)} | ${yardstickOf(workload.id, peer) === peer ? '1.00×' : fmt.ratio(s.ratio)} | ${fmt.int(s.opsPerCpuSecond)} | ${fmt.int(1e6 / s.opsPerCpuSecond)} | ${fmt.int(s.serverCpuPerOp * 1e6)} | ${database} | ${fmt.ms(s.p50)} | ${fmt.ms(s.p99)} | ${fmt.int(s.peakMiB)} | ${fmt.sql(s.statementsPerOp)} |`,
        );
      }
      out.push('');
    }
    for (const skip of skipped) out.push(`- ${peerByName.get(skip.peer)?.label ?? skip.peer}: n/a — ${skip.reason}`);
    if (skipped.length > 0) out.push('');
  }

  out.push('## Targets', '', '| Target | Workload | Diglot | against | Measured | Verdict |', '|---|---|---|---|--:|---|');
  for (const row of targets) {
    const against = row.den === undefined ? '' : (peerByName.get(row.den)?.label ?? row.den);
    out.push(`| ${row.group} | ${row.w} | ${row.num.replace('diglot-', '')} | ${against} | ${targetCell(row)} | ${verdict(row)} |`);
  }
  out.push('');
  out.push('Idle RSS after start (MiB): ' + Object.entries(idle).map(([peer, rss]) => `${peer} ${Math.round(rss)}`).join(' · '), '');
  if (notes.length > 0) {
    out.push('## Notes', '');
    for (const note of notes) out.push(`- ${note}`);
    out.push('');
  }
  return out.join('\n');
}
