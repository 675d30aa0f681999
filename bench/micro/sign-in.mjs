// Sign-in cost: ms per argon2id hash, sign-ins a second, and whether the rest of the API stays responsive
// while sign-ins run (the hash runs on libuv's thread pool, not on the event loop).
//
//   npm run build
//   node_modules/.bin/node bench/micro/sign-in.mjs [--seconds 5] [--storm 8]
//
// The script serves the example (with its rules and accounts) from a fresh SQLite file in a child process
// of its own, with the sign-in rate limits lifted (a bench is one address trying hard), then measures from
// this process over real sockets:
//   1. ms per hash: argon2id at Diglot's default cost (OWASP: m=19456 KiB, t=2, p=1), one at a time, in-process;
//   2. sign-ins/s: `--storm` clients signing in with the right password for `--seconds`;
//   3. p50/p99 of GET /users/<id>, one request at a time, alone and during such a storm;
//   4. p50 of a wrong password for a known email and for an unknown one (the answer must not tell them apart).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '../..');
const { values: options } = parseArgs({
  options: {
    serve: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    storm: { type: 'string', default: '8' },
  },
});

if (options.serve !== undefined) {
  await serve(options.serve);
} else {
  await measure();
}

/** The child: the example with accounts on a fresh SQLite file, seeded, limits lifted; prints its URL and a demo account. */
async function serve(folder) {
  const dist = (path) => import(join(root, 'dist', path));
  const { loadSchemaFiles } = await dist('schema/load-schema.js');
  const { openDatabase } = await dist('storage/open-database.js');
  const { migrate } = await dist('storage/migrate/migrate.js');
  const { createEngine } = await dist('engine/engine.js');
  const { createServer } = await dist('server/create-server.js');
  const { createAccounts } = await dist('auth/accounts/accounts.js');
  const loaded = await loadSchemaFiles([join(root, 'examples/social/schema.graphql')]);
  if (!loaded.ok) throw new Error('the example schema does not load');
  const db = await openDatabase(join(folder, 'bench.db'));
  await migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
  const engine = createEngine(loaded.model, db);
  await engine.seed({ counts: { User: 1000, Post: 2000, Product: 10, Order: 10, OrderItem: 10 }, linksPerRecord: 2 });
  const unlimited = { points: 1e9, seconds: 1 };
  const accountOptions = { limits: { failuresPerIdentifier: unlimited, signInsPerAddress: unlimited, resetsPerKey: unlimited } };
  const accounts = await createAccounts(engine, accountOptions);
  const [user] = await db.all("SELECT id, email FROM users WHERE suspended_reason IS NULL ORDER BY id LIMIT 1");
  await accounts.setPassword(user.id, 'bench password 0123');
  const app = await createServer({ engine, logger: false, accounts: accountOptions });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send({ url: `http://127.0.0.1:${app.server.address().port}`, email: user.email, id: user.id });
}

async function measure() {
  const folder = mkdtempSync(join(tmpdir(), 'diglot-sign-in-'));
  const child = fork(import.meta.filename, ['--serve', folder], { stdio: 'inherit' });
  try {
    const { url, email, id } = await new Promise((done, fail) => {
      child.once('message', done);
      child.once('exit', (code) => fail(new Error(`the server exited (${code})`)));
    });
    const seconds = Number(options.seconds);
    const storm = Number(options.storm);

    const { hash } = await import('@node-rs/argon2');
    await hash('warm up', { memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    const hashes = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await hash(`password ${i}`, { memoryCost: 19_456, timeCost: 2, parallelism: 1 });
      hashes.push(performance.now() - started);
    }

    const signIn = (password, who = email) =>
      fetch(`${url}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: who, password }) }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    const timed = async (work) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const getUser = () => fetch(`${url}/users/${id}`).then((response) => response.arrayBuffer());
    const latencies = async (until) => {
      const times = [];
      while (performance.now() < until) times.push(await timed(getUser));
      return times;
    };

    for (let i = 0; i < 50; i++) await getUser();
    const quiet = await latencies(performance.now() + seconds * 1000);

    let signedIn = 0;
    let refused = 0;
    const stormUntil = performance.now() + seconds * 1000;
    const stormers = Array.from({ length: storm }, async () => {
      while (performance.now() < stormUntil) {
        if ((await signIn('bench password 0123')) === 200) signedIn++;
        else refused++;
      }
    });
    const busy = await latencies(stormUntil);
    await Promise.all(stormers);

    const known = [];
    const unknown = [];
    for (let i = 0; i < 30; i++) {
      known.push(await timed(() => signIn('a wrong password here')));
      unknown.push(await timed(() => signIn('a wrong password here', `nobody-${i}@example.com`)));
    }

    const fmt = (ms) => `${ms.toFixed(1)} ms`;
    console.log(`argon2id m=19456 t=2 p=1, one at a time: p50 ${fmt(quantile(hashes, 0.5))} per hash`);
    console.log(`sign-ins: ${(signedIn / seconds).toFixed(1)}/s with ${storm} clients over ${seconds} s (${refused} refused)`);
    console.log(`GET /users/<id> alone:        p50 ${fmt(quantile(quiet, 0.5))}, p99 ${fmt(quantile(quiet, 0.99))} (${quiet.length} requests)`);
    console.log(`GET /users/<id> during storm: p50 ${fmt(quantile(busy, 0.5))}, p99 ${fmt(quantile(busy, 0.99))} (${busy.length} requests)`);
    console.log(`wrong password, known email:   p50 ${fmt(quantile(known, 0.5))}`);
    console.log(`wrong password, unknown email: p50 ${fmt(quantile(unknown, 0.5))}`);
  } finally {
    child.kill();
    rmSync(folder, { recursive: true, force: true });
  }
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
