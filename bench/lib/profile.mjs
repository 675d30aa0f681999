// `npm run bench -- --profile`: Diglot (SQLite, the compiled CLI) under W1,
// W4 and W7 with `node --cpu-prof`, and the yardstick of each beside it (for
// W7, Fastify sending a fixed body: what the framework alone costs), or the
// peers `--peers` names (PostgreSQL ones included),
// each profile summarised by self time (the functions where the CPU actually
// went) and by package. Only the samples taken during the measured load
// count: start-up and warm-up are cut. Native code has no frames of its own:
// SQLite's time shows in the JavaScript function that called the driver, the
// kernel's socket work in `writeUtf8String`.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildDataset } from './dataset.mjs';
import { loadOnce, untilSoleDiglotOn } from './measure.mjs';
import { diglotNodeFlags, launchSpec, peerByName } from './peers.mjs';
import { freePort } from './processes.mjs';
import { YARDSTICK } from './report.mjs';
import { WORKLOADS } from './workloads.mjs';

/**
 * The yardstick profiled beside Diglot: the report's (`YARDSTICK`), except that
 * a 304 is set beside Fastify sending a fixed body — what the framework alone
 * costs — rather than bare node:http.
 */
const yardstickOf = (id) => (id === 'W7' || id === 'W8' ? 'fastify-fixed' : YARDSTICK[id]);
/** Profiled unless `--workloads` names others (W10 serves files; nothing to compare there). */
const DEFAULT_PROFILED = ['W1', 'W4', 'W7'];

export async function profile({ root, benchDir, dataDir, processes, log, env, config, pgUrl }) {
  log(pgUrl === undefined ? 'Data set (SQLite only)' : 'Data set (SQLite and PostgreSQL)');
  const dataset = await buildDataset({ root, dataDir, pgUrl, log, jsonServer: false });
  const profileDir = join(dataDir, 'profiles');
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  const sections = [];
  const diglotFlags = await diglotNodeFlags(root);
  const profiled = (config.workloads ?? DEFAULT_PROFILED).filter((id) => id !== 'W10' && id in YARDSTICK).map((id) => [id, yardstickOf(id)]);
  for (const [id, yardstick] of profiled) {
    const workload = WORKLOADS.find((w) => w.id === id);
    // W1a and W4a compare Diglot with itself (open schema, rules, a member's JWT): all three are profiled.
    const byDefault = yardstick === 'diglot-sqlite' ? Object.keys(workload.peers) : ['diglot-sqlite', yardstick];
    const peers = config.peers?.filter((peer) => peer in workload.peers && (pgUrl !== undefined || peerByName.get(peer)?.db !== 'pg')) ?? byDefault;
    for (const peer of peers) {
      const port = await freePort();
      const spec = launchSpec(peer, { root, benchDir, dataset, dataDir, port, diglotFlags });
      const file = `${id}-${peer}.cpuprofile`;
      const spawned = performance.now();
      const server = await processes.start({
        name: `profile-${id}-${peer}`,
        port,
        ...spec,
        nodeArgs: [...(spec.nodeArgs ?? []), '--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', file],
        countStatements: false,
      });
      const call = async ({ method = 'GET', path, headers = {}, body }) => {
        const response = await globalThis.fetch(server.origin + path, { method, headers, body });
        const text = await response.text();
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: response.status, headers: response.headers, json };
      };
      const ids = Array.from({ length: 100 }, (_, i) => String(1 + ((i * 97) % 10_000)));
      const { requests } = await workload.peers[peer]({ ids, call });
      log(`${id} ${peer}: warm-up ${config.warmup}s, then ${config.duration}s profiled`);
      await loadOnce({ origin: server.origin, requests, seconds: config.warmup, connections: config.connections });
      if (peer === 'diglot-pg') await untilSoleDiglotOn(pgUrl, root);
      const loadFrom = performance.now() - spawned;
      const result = await loadOnce({ origin: server.origin, requests, seconds: config.duration, connections: config.connections });
      const loadTo = performance.now() - spawned;
      await processes.stop(`profile-${id}-${peer}`);
      const summary = summarizeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')), loadFrom * 1000, loadTo * 1000);
      sections.push(render(`${id}, ${peerByName.get(peer).label}`, workload.title, result.requests.total / result.duration, summary));
    }
  }
  const report = [
    `# CPU profiles: Diglot and the yardsticks — ${env.date}`,
    '',
    `Diglot ${env.commit} · Node ${env.node} · ${env.cpu} (${env.cores} cores) · ${config.peers === undefined ? 'Diglot on SQLite via the compiled CLI and the hand-written yardsticks' : `peers ${config.peers.join(', ')}`}, each with \`node --cpu-prof\` · ${config.connections} connections · ${config.duration}s per workload after ${config.warmup}s warm-up. The profiler itself costs some throughput.`,
    '',
    ...sections,
  ].join('\n');
  process.stdout.write(`${report}\n`);
  const cpuSlug = env.cpu.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const target = join(benchDir, 'results', `${env.date.slice(0, 10)}-node${env.node}-${cpuSlug}-profile.md`);
  mkdirSync(join(benchDir, 'results'), { recursive: true });
  writeFileSync(target, `${report}\n`);
  log(`Written: ${target.slice(root.length + 1)} (raw profiles in ${profileDir.slice(root.length + 1)}/)`);
}

/** Where a frame's code lives: Diglot, a package, Node itself, or V8. */
function packageOf(url, functionName) {
  if (functionName.startsWith('(')) return functionName;
  // Native functions carry no URL; the profiler charges their time (SQLite's work, the socket write) to them.
  if (['writeUtf8String', 'writeLatin1String', 'writev', 'writeBuffer'].includes(functionName)) return '(socket writes: kernel TCP on loopback)';
  if (url === '') return '(native: V8 builtins, C++ bindings such as better-sqlite3)';
  if (url.includes('/dist/storage/sqlite/') && (functionName.startsWith('#') || functionName.endsWith('dataVersion'))) {
    return 'SQLite executing statements (native, charged to Diglot\'s driver call)';
  }
  if (url.includes('/dist/')) return 'diglot';
  if (url.includes('/bench/servers/')) return 'the hand-written server (its SQLite calls included)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (match !== null) return match[1];
  if (url.startsWith('node:')) return 'node (core)';
  return url;
}

/** Self time per function and per package, from the samples between `fromUs` and `toUs` after the profile began. */
export function summarizeProfile(profile, fromUs, toUs) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map();
  let at = 0;
  let total = 0;
  profile.samples.forEach((nodeId, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < fromUs || at > toUs) return;
    selfByNode.set(nodeId, (selfByNode.get(nodeId) ?? 0) + delta);
    total += delta;
  });
  const byFunction = new Map();
  const byPackage = new Map();
  for (const [nodeId, micros] of selfByNode) {
    const { functionName, url, lineNumber } = nodes.get(nodeId).callFrame;
    const name = functionName === '' ? '(anonymous)' : functionName;
    const where = url === '' ? '' : `${url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    const key = `${name}\u0000${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const pkg = packageOf(url, functionName);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  }
  const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  return { total, functions: sorted(byFunction).slice(0, 25), packages: sorted(byPackage).slice(0, 12) };
}

function render(id, title, rate, summary) {
  const pct = (micros) => `${((micros / summary.total) * 100).toFixed(1)}%`;
  const lines = [`## ${id} — ${title}`, '', `${Math.round(rate).toLocaleString('en')} req/s while profiled; ${(summary.total / 1e6).toFixed(1)}s of samples.`, ''];
  lines.push('| Self time | Package |', '|--:|---|');
  for (const [pkg, micros] of summary.packages) lines.push(`| ${pct(micros)} | ${pkg} |`);
  lines.push('', '| Self time | Function | Where |', '|--:|---|---|');
  for (const [key, micros] of summary.functions) {
    const [name, where] = key.split('\u0000');
    lines.push(`| ${pct(micros)} | \`${name}\` | ${where} |`);
  }
  lines.push('');
  return lines.join('\n');
}
