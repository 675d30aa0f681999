// `npm run bench -- --cluster`: Diglot on PostgreSQL behind HAProxy, with one
// and with two instances, beside the same instance asked directly: what the
// load balancer costs, and whether a second instance on the same machine
// degrades anything. W1, W4 and W6, as the main run builds them.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadOnce, warmUp } from './measure.mjs';
import { cpuSeconds } from './proc-stats.mjs';
import { freePort } from './processes.mjs';

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => spawnSync(path, ['-v']).status === 0);

/** The configuration of docs/production.md (and test/support/cluster.ts), for these servers. */
function haproxyConfig(port, servers) {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout check 2s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response response-timeout',
    'frontend diglot',
    `  bind 127.0.0.1:${port}`,
    '  default_backend diglot',
    'backend diglot',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz',
    '  http-check expect status 200',
    '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS',
    '  default-server inter 1s fall 2 rise 2',
    ...servers.map((origin, i) => `  server s${i} ${new URL(origin).host} check`),
    '',
  ].join('\n');
}

/** HAProxy in the foreground as one process (no master), so its CPU is read from one pid. */
async function startHaproxy(servers, children) {
  const folder = mkdtempSync(join(tmpdir(), 'diglot-bench-haproxy-'));
  const port = await freePort();
  const file = join(folder, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(port, servers));
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  // Up once a request through it reaches a server (the checks need `rise` rounds first).
  for (;;) {
    const status = await fetch(`${origin}/readyz`).then((response) => response.status, () => 0);
    if (status === 200) return { origin, pid: child.pid };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`HAProxy did not start in front of ${servers.join(', ')}`);
    await sleep(200);
  }
}

/**
 * Runs the comparison and returns its markdown. `first` is the diglot-pg
 * server the main run started; `startSecond` starts another one on the same
 * database (and returns it, with a `stop`). `plan` holds the W1, W4 and W6
 * request sequences built for diglot-pg.
 */
export async function runCluster({ first, startSecond, plan, config, log }) {
  if (HAPROXY === undefined) throw new Error('--cluster needs HAProxy (apt-get install -y haproxy)');
  const children = [];
  const rows = [];
  const loadavg = () => spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  const before = loadavg();
  const measureOn = async (setup, origin, pids, entry, rep) => {
    const cpu0 = pids.map((pid) => cpuSeconds(pid) ?? 0);
    const result = await loadOnce({ origin, requests: entry.spec.requests, seconds: config.duration, connections: config.connections });
    const cpu = pids.reduce((sum, pid, i) => sum + (cpuSeconds(pid) ?? 0) - (cpu0[i] ?? 0), 0);
    const expect = String(entry.spec.expect ?? 200);
    const unexpected = result.requests.total - (result.statusCodeStats?.[expect]?.count ?? 0);
    rows.push({ setup, workload: entry.workload.id, rep, opsPerSecond: result.requests.total / result.duration, p99: result.latency.p99, cpuMsPerOp: (cpu * 1000) / Math.max(1, result.requests.total), unexpected });
    log(`  rep ${rep} ${entry.workload.id.padEnd(3)} ${setup.padEnd(22)} ${Math.round(result.requests.total / result.duration).toString().padStart(6)} ops/s  p99 ${result.latency.p99} ms${unexpected > 0 ? `  (${unexpected} unexpected)` : ''}`);
  };
  try {
    // One instance: asked directly, and through HAProxy (rotated, so noise falls on both alike).
    const one = await startHaproxy([first.origin], children);
    const setupsOne = [
      { setup: 'direct, 1 instance', origin: first.origin, pids: [first.pid] },
      { setup: 'HAProxy, 1 instance', origin: one.origin, pids: [first.pid, one.pid] },
    ];
    for (const entry of plan) await warmUp({ origin: one.origin, requests: entry.spec.requests, seconds: config.warmup, connections: config.connections });
    for (let rep = 1; rep <= config.reps; rep++) {
      for (const entry of plan) {
        const order = rep % 2 === 0 ? [...setupsOne].reverse() : setupsOne;
        for (const { setup, origin, pids } of order) await measureOn(setup, origin, pids, entry, rep);
      }
    }
    // Two instances on the same database (the writer lease is let go: revalidations read the clocks).
    const second = await startSecond();
    const two = await startHaproxy([first.origin, second.origin], children);
    for (const entry of plan) await warmUp({ origin: two.origin, requests: entry.spec.requests, seconds: config.warmup, connections: config.connections });
    for (let rep = 1; rep <= config.reps; rep++) {
      for (const entry of plan) await measureOn('HAProxy, 2 instances', two.origin, [first.pid, second.pid, two.pid], entry, rep);
    }
    await second.stop();
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
  return report(rows, { before, after: loadavg(), config });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function report(rows, { before, after, config }) {
  const setups = ['direct, 1 instance', 'HAProxy, 1 instance', 'HAProxy, 2 instances'];
  const workloads = [...new Set(rows.map((row) => row.workload))];
  const lines = [
    `Load average (1, 5, 15 min) before: ${before}; after: ${after}. ${config.reps} repetitions × ${config.duration} s, ${config.connections} connections; medians.`,
    '',
    '| Workload | Setup | ops/s | p99 ms | CPU ms/op (Diglot + HAProxy) | × direct | unexpected |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const workload of workloads) {
    const of = (setup) => rows.filter((row) => row.workload === workload && row.setup === setup);
    const direct = median(of(setups[0]).map((row) => row.opsPerSecond));
    for (const setup of setups) {
      const runs = of(setup);
      if (runs.length === 0) continue;
      const ops = median(runs.map((row) => row.opsPerSecond));
      lines.push(
        `| ${workload} | ${setup} | ${Math.round(ops)} | ${median(runs.map((row) => row.p99))} | ${median(runs.map((row) => row.cpuMsPerOp)).toFixed(2)} | ${(ops / direct).toFixed(2)} | ${runs.reduce((sum, row) => sum + row.unexpected, 0)} |`,
      );
    }
  }
  return lines.join('\n');
}
