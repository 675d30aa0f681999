// Live reads under load: many SSE readers of a few records on one SQLite instance, writes at a steady rate.
//
//   npm run build && node_modules/.bin/node bench/micro/live-readers.mjs [--readers 2000] [--records 100] [--rate 100] [--seconds 20] [--transport sse|ws|events]
//
// The server is a child process (Diglot built in dist/, the example schema without rules, a fresh SQLite file
// with 1,000 users). The readers are `--readers` Server-Sent Events streams (`GET /users/<id>?fields=id,name`
// with `Accept: text/event-stream`, one HTTP connection each, parsed as EventSource does), spread evenly over
// `--records` users; with `--transport ws`, graphql-ws clients instead (a WebSocket each) with the live query
// `subscription { user(id:) { id name } }`; with `--transport events`, graphql-ws clients with the change-event
// subscription `userUpdated(filter: { id: { eq: } }) { id name }` (no first value: only each change). Then PATCH /users/<id> runs `--rate` times a second, each on the next record in turn, each
// setting a name no write used before. Reported:
//   - latency: from the moment a write's response arrived to the moment each reader of that record received the
//     new name (p50, p99, max over every message), and per write the time until the last of its readers had it;
//   - messages lost (a reader that never saw a name written to its record) and messages not caused by a write;
//   - server memory per idle reader: the server's RSS and V8 heap (after a full GC) with every reader connected
//     and idle, minus the same before any connected, divided by the readers.
// Linux (/proc); the numbers depend on the machine (2 shared cores here), so read them as "about".
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeOpenSchema } from '../lib/dataset.mjs';

const root = resolve(import.meta.dirname, '../..');

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else await main();

/** The child: a Diglot server on a fresh SQLite file, answering memory questions over IPC. */
async function serve(dir) {
  const diglot = await import(join(root, 'dist/index.js'));
  const schemaFile = writeOpenSchema(root, dir);
  const loaded = await diglot.loadSchemaFiles([schemaFile]);
  if (!loaded.ok) throw new Error(diglot.formatProblems(loaded.problems));
  const db = await diglot.openDatabase(join(dir, 'live.db'));
  await diglot.migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
  // Limits raised for the bench: every reader is the same anonymous client on 127.0.0.1.
  const engine = diglot.createEngine(loaded.model, db, { live: { maxPerClient: 100_000, maxTotal: 100_000 } });
  await engine.seed({ counts: { User: 1000, Post: 1000, Product: 10, Order: 10, OrderItem: 10 }, linksPerRecord: 2 });
  const app = await diglot.createServer({ engine, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  // The bench gone (killed, crashed): no server left behind.
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message) => {
    if (message === 'memory') {
      globalThis.gc?.();
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      process.send({ rss, heapUsed });
    }
    if (message === 'stop') void app.close().then(() => db.close()).then(() => process.exit(0));
  });
  process.send({ port: app.server.address().port });
}

async function main() {
  const { values } = parseArgs({
    options: {
      readers: { type: 'string', default: '2000' },
      records: { type: 'string', default: '100' },
      rate: { type: 'string', default: '100' },
      seconds: { type: 'string', default: '20' },
      transport: { type: 'string', default: 'sse' },
    },
  });
  const readers = Number(values.readers);
  const records = Number(values.records);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const dir = mkdtempSync(join(tmpdir(), 'diglot-live-bench-'));
  const child = fork(import.meta.filename, ['serve', dir], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (message) =>
    new Promise((done) => {
      child.once('message', done);
      if (message !== undefined) child.send(message);
    });
  const { port } = await ask();
  const step = (text) => process.stderr.write(`${text}\n`);
  step('server up');
  const base = `http://127.0.0.1:${port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const request = (method, path, body) =>
    new Promise((done, fail) => {
      const req = http.request(`${base}${path}`, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode, text }));
      });
      req.on('error', fail);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  const ids = JSON.parse((await request('GET', `/users?limit=${records}&fields=id`)).text).data.map((user) => user.id);
  // Warm the read path and let the heap settle before the baseline.
  for (const id of ids) await request('GET', `/users/${id}?fields=id,name`);
  const before = await ask('memory');
  step(`baseline: rss ${before.rss}`);

  /** When each name's write response arrived, by name. */
  const answered = new Map();
  const latencies = [];
  /** For each name: readers of its record that have not seen it yet, and when the last one did. */
  const waiting = new Map();
  const lastSeen = new Map();
  let unexpected = 0;
  let initial = 0;
  const streams = [];
  const received = (name) => {
    const at = performance.now();
    const left = waiting.get(name);
    if (left === undefined) {
      unexpected++;
      return;
    }
    waiting.set(name, left - 1);
    lastSeen.set(name, at);
    const sent = answered.get(name);
    // A message can beat the write's own response to the writer; it counts as 0.
    latencies.push(sent === undefined ? 0 : Math.max(0, at - sent));
  };
  const { createClient } = await import('graphql-ws');
  const { default: WebSocket } = await import('ws');
  /** A graphql-ws client (a socket of its own) with a live query of the record. */
  const subscribe = (id) =>
    new Promise((done, fail) => {
      const client = createClient({ url: base.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
      let first = true;
      client.subscribe(
        { query: 'subscription ($id: ID!) { user(id: $id) { id name } }', variables: { id } },
        {
          next: ({ data }) => {
            if (!first) return received(data.user.name);
            first = false;
            initial++;
            done();
          },
          error: fail,
          complete: () => undefined,
        },
      );
      streams.push({ destroy: () => client.dispose() });
    });

  /** A graphql-ws client with a change-event subscription of the record's updates. */
  const subscribeEvents = (id) =>
    new Promise((done, fail) => {
      // No first message: the subscription counts once its socket is open (the writes start 2 s after the last).
      const client = createClient({ url: base.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, on: { connected: () => done() } });
      client.subscribe(
        { query: 'subscription ($id: ID!) { userUpdated(filter: { id: { eq: $id } }) { id name } }', variables: { id } },
        { next: ({ data }) => received(data.userUpdated.name), error: fail, complete: () => undefined },
      );
      streams.push({ destroy: () => client.dispose() });
    });

  const sseAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const open = (id) =>
    new Promise((done, fail) => {
      const req = http.get(`${base}/users/${id}?fields=id,name`, { agent: sseAgent, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return fail(new Error(`SSE answered ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        let first = true;
        res.on('data', (chunk) => {
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .join('\n');
            if (data === '') continue;
            const { name } = JSON.parse(data);
            if (first) {
              first = false;
              initial++;
              done();
              continue;
            }
            received(name);
          }
        });
      });
      req.on('error', fail);
      streams.push(req);
    });
  const connect = { ws: subscribe, events: subscribeEvents, sse: open }[values.transport];
  if (connect === undefined) throw new Error(`--transport is sse, ws or events, not ${values.transport}`);
  const started = performance.now();
  for (let i = 0; i < readers; i += 100) await Promise.all(Array.from({ length: Math.min(100, readers - i) }, (_, j) => connect(ids[(i + j) % records])));
  const connectSeconds = (performance.now() - started) / 1000;
  step(`${readers} readers connected`);
  await new Promise((done) => setTimeout(done, 2000));
  const idle = await ask('memory');

  const writeTimes = new Map();
  let sequence = 0;
  const writes = [];
  const interval = 1000 / rate;
  const cpuBefore = cpuOf(child.pid);
  const t0 = performance.now();
  for (let n = 0; n < rate * seconds; n++) {
    const due = t0 + n * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    const id = ids[n % records];
    const name = `live ${++sequence}`;
    waiting.set(name, readersOf(n % records, readers, records));
    writes.push(
      request('PATCH', `/users/${id}`, { name }).then(({ status }) => {
        if (status !== 200) throw new Error(`PATCH answered ${status}`);
        const at = performance.now();
        answered.set(name, at);
        writeTimes.set(name, at);
      }),
    );
  }
  await Promise.all(writes);
  const writeSeconds = (performance.now() - t0) / 1000;
  const cpuDuring = cpuOf(child.pid) - cpuBefore;
  await new Promise((done) => setTimeout(done, 2000));
  const lost = [...waiting.values()].reduce((sum, left) => sum + Math.max(0, left), 0);
  const perWrite = [...writeTimes].map(([name, at]) => Math.max(0, (lastSeen.get(name) ?? Infinity) - at));

  for (const req of streams) req.destroy();
  child.send('stop');
  await new Promise((done) => child.once('exit', done));
  rmSync(dir, { recursive: true, force: true });

  const kib = (bytes) => (bytes / 1024).toFixed(1);
  const report = {
    transport: values.transport,
    readers,
    records,
    rate,
    seconds,
    connectSeconds: Number(connectSeconds.toFixed(1)),
    initialValues: initial,
    messages: latencies.length,
    lost,
    unexpected,
    messageMs: percentiles(latencies),
    lastReaderPerWriteMs: percentiles(perWrite),
    // The server's CPU while the writes ran (user + system), as a share of one core: writes, re-runs and sends together.
    serverCpuShare: Number((cpuDuring / 1e6 / writeSeconds).toFixed(2)),
    loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
    perIdleReaderKiB: { rss: kib((idle.rss - before.rss) / readers), heap: kib((idle.heapUsed - before.heapUsed) / readers) },
  };
  console.log(JSON.stringify(report, null, 2));
}

/** CPU time of a process so far, in µs (clock ticks of 10 ms; Linux). */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Readers of the record at `index` when `readers` are dealt round-robin over `records`. */
function readersOf(index, readers, records) {
  return Math.floor(readers / records) + (index < readers % records ? 1 : 0);
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => (sorted.length === 0 ? null : Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1)));
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}
