// One measured run: autocannon against one peer for a fixed time at a fixed
// concurrency, with the server's CPU (and its PostgreSQL backends' CPU), its
// peak RSS during the run and the SQL statements it sent.

import http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import { adminUrl, databaseName } from './dataset.mjs';
import { cpuSeconds, localPorts, memory, resetPeak } from './proc-stats.mjs';

/** CPU of the PostgreSQL backends serving one database, read from /proc by their pids. */
export class PgBackends {
  #client;
  #database;

  constructor(adminUrl, database) {
    this.#client = new pg.Client({ connectionString: adminUrl, application_name: 'diglot-bench-monitor' });
    this.#database = database;
  }

  async open() {
    await this.#client.connect();
  }

  async close() {
    await this.#client.end().catch(() => undefined);
  }

  /**
   * The Diglot processes connected to the database: each has one connection
   * for its writer lease, named `diglot-writer-lease`.
   */
  async diglotProcesses() {
    const { rows } = await this.#client.query(
      "SELECT pid, client_addr, client_port, backend_start FROM pg_stat_activity WHERE datname = $1 AND application_name = 'diglot-writer-lease'",
      [this.#database],
    );
    return rows;
  }

  /** True when some connection to the database holds the advisory lock `key` (a bigint, as text) exclusively. */
  async holdsLock(key) {
    const { rows } = await this.#client.query(
      `SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND mode = 'ExclusiveLock' AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = $1)
          AND ((classid::int8 << 32) | objid::int8) = $2::int8`,
      [this.#database, key],
    );
    return rows.length > 0;
  }

  /**
   * pid → CPU seconds of every backend serving the server process
   * `serverPid`: the backends on the database whose client port is one of
   * that process's sockets (the other peers' connections to the same
   * database are left out). Backends over a Unix socket have no port and
   * are not found; the bench connects over TCP.
   */
  async snapshot(serverPid) {
    const { rows } = await this.#client.query('SELECT pid, client_port FROM pg_stat_activity WHERE datname = $1', [this.#database]);
    const ports = localPorts(serverPid);
    const out = new Map();
    for (const { pid, client_port: port } of rows) {
      if (!ports.has(port)) continue;
      const seconds = cpuSeconds(pid);
      if (seconds !== undefined) out.set(pid, seconds);
    }
    return out;
  }
}

/** Diglot takes its writer lease 3 s after it finds itself alone on the database (`ALONE_MS`); this leaves room. */
const LEASE_WAIT_MS = 10_000;

/**
 * Diglot on PostgreSQL answers a revalidation from memory, and writes
 * without a guard, only while it is the one Diglot on its database and has
 * taken the writer lease (a few seconds after it starts). Measured before,
 * or beside another Diglot left connected to the bench's database (a server
 * of your own, a test), it is measured in a state it is not in in
 * production: so this waits for the lease, or stops the run.
 */
export async function untilSoleDiglot(backends, root) {
  const { LEASE_KEY } = await import(pathToFileURL(join(root, 'dist/storage/postgres/writer-lease.js')).href);
  const processes = await backends.diglotProcesses();
  if (processes.length > 1) {
    const where = processes.map((row) => `backend ${row.pid} (client ${row.client_addr ?? 'local socket'}${row.client_port > 0 ? `:${row.client_port}` : ''}, since ${row.backend_start?.toISOString() ?? 'a time not shown to this user'})`);
    throw new Error(
      `${processes.length} Diglot processes are connected to the bench's database, where only the measured one should be: ${where.join('; ')}. ` +
        'Stop the others (pgrep -af cli/main.js) and run the bench again.',
    );
  }
  const deadline = Date.now() + LEASE_WAIT_MS;
  while (!(await backends.holdsLock(LEASE_KEY))) {
    if (Date.now() > deadline) throw new Error(`Diglot on PostgreSQL did not take its writer lease within ${LEASE_WAIT_MS / 1000} s of being alone on the bench's database`);
    await sleep(200);
  }
}

/** `untilSoleDiglot` on the database at `pgUrl`, over a connection of its own. */
export async function untilSoleDiglotOn(pgUrl, root) {
  const backends = new PgBackends(adminUrl(pgUrl), databaseName(pgUrl));
  await backends.open();
  try {
    await untilSoleDiglot(backends, root);
  } finally {
    await backends.close();
  }
}

/**
 * CPU spent between two snapshots; a backend born during the run counts from
 * zero. One that ended during the run is lost (a pool under load keeps its
 * connections; Diglot's close after 30 s idle).
 */
function backendCpu(before, after) {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

export async function loadOnce({ origin, requests, seconds, connections }) {
  return autocannon({ url: origin, requests, duration: seconds, connections, pipelining: 1, timeout: 10 });
}

/**
 * Warm-up traffic (JIT, prepared statements, caches): the same request
 * sequence over keep-alive connections for `seconds`. Not autocannon, whose
 * runs last whole seconds, too long for the quick mode's short warm-ups.
 */
export async function warmUp({ origin, requests, seconds, connections }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const deadline = Date.now() + seconds * 1000;
  let next = 0;
  const send = (request) =>
    new Promise((resolve) => {
      const req = http.request(origin + request.path, { agent, method: request.method ?? 'GET', headers: request.headers }, (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', resolve);
      });
      req.on('error', resolve);
      req.end(request.body);
    });
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < deadline) {
          const request = requests[next++ % requests.length];
          await send(request.setupRequest === undefined ? request : request.setupRequest({ ...request }, {}));
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

/**
 * Runs the load and returns what the report needs. `perOp` requests make one
 * operation (3 for the hand-written W9); rates are per operation.
 */
export async function measure({ server, peer, spec, seconds, connections, backends }) {
  resetPeak(server.pid);
  const pg0 = peer.db === 'pg' && backends !== undefined ? await backends.snapshot(server.pid) : undefined;
  const statements0 = await server.statements();
  const cpu0 = cpuSeconds(server.pid);
  const result = await loadOnce({ origin: server.origin, requests: spec.requests, seconds, connections });
  const cpu1 = cpuSeconds(server.pid);
  const statements1 = await server.statements();
  const pg1 = pg0 === undefined ? undefined : await backends.snapshot(server.pid);
  const { peakMiB, rssMiB } = memory(server.pid);

  const perOp = spec.perOp ?? 1;
  const expect = spec.expect ?? 200;
  const responses = result.requests.total;
  const expected = result.statusCodeStats?.[String(expect)]?.count ?? 0;
  const ops = responses / perOp;
  const serverCpu = cpu1 === undefined || cpu0 === undefined ? NaN : cpu1 - cpu0;
  const dbCpu = pg0 === undefined ? 0 : backendCpu(pg0, pg1);
  return {
    opsPerSecond: ops / result.duration,
    requestsPerSecond: responses / result.duration,
    opsPerCpuSecond: ops / (serverCpu + dbCpu),
    serverCpu,
    dbCpu,
    serverCpuPerOp: serverCpu / ops,
    dbCpuPerOp: dbCpu / ops,
    p50: result.latency.p50,
    p99: result.latency.p99,
    peakMiB,
    rssMiB,
    statementsPerOp: statements0 === undefined || statements1 === undefined || ops === 0 ? null : (statements1 - statements0) / ops,
    responses,
    unexpected: responses - expected + result.errors + result.timeouts,
    duration: result.duration,
  };
}
