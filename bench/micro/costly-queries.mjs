// What hostile-but-small requests cost the server, and what they are charged (issue 36, findings 1 and 6).
//
//   npm run build && node_modules/.bin/node bench/micro/costly-queries.mjs [--db sqlite|postgres] [--users 2000] [--posts 20000] [--levels 8,10,12,14]
//
// The server is a child process (Diglot built in dist/, the example schema as shipped, anonymous callers),
// on a fresh SQLite file or a fresh PostgreSQL database (`--pg`, default postgres://postgres@127.0.0.1:5432/postgres;
// the database `diglot_costbench` is created and dropped). Reported:
//   - the fragment bomb: a query of N fragments, each spreading the next three times under a relation, as POST
//     /graphql: how long its answer took, its error code, what it was charged (RateLimit points), and how long a
//     `GET /healthz` sent 20 ms after it took to answer;
//   - 20 aliased `postsCount(filter: { body: { contains: … } })` (a full scan each): time and points charged,
//     and the REST count with the same filter.
// Points charged are read from the `RateLimit` header (`r=` points left) of a 1-point probe before and after.
// Timings depend on the machine (2 shared cores here): read them as "about".
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '../..');

if (process.argv[2] === 'serve') await serve(JSON.parse(process.argv[3]));
else await main();

async function serve({ dir, url, users, posts }) {
  const diglot = await import(join(root, 'dist/index.js'));
  const loaded = await diglot.loadSchemaFiles([join(root, 'examples/social/schema.graphql')]);
  if (!loaded.ok) throw new Error(diglot.formatProblems(loaded.problems));
  const db = await diglot.openDatabase(url ?? join(dir, 'cost.db'));
  await diglot.migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
  const engine = diglot.createEngine(loaded.model, db);
  await engine.seed({ counts: { User: users, Post: posts, Product: 10, Order: 10, OrderItem: 10 }, linksPerRecord: 2 });
  const app = await diglot.createServer({ engine, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message) => {
    if (message === 'stop') void app.close().then(() => db.close()).then(() => process.exit(0));
  });
  process.send({ port: app.server.address().port });
}

function bomb(levels) {
  const fragments = [];
  for (let i = 0; i < levels; i++) {
    const next = `...F${i + 1}`;
    fragments.push(`fragment F${i} on User { followers(first: 1) { ${next} } following(first: 1) { ${next} } posts(first: 1) { author { ${next} } } }`);
  }
  fragments.push(`fragment F${levels} on User { id name }`);
  return `{ users(first: 1) { ...F0 } } ${fragments.join(' ')}`;
}

async function main() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
      users: { type: 'string', default: '2000' },
      posts: { type: 'string', default: '20000' },
      levels: { type: 'string', default: '8,10,12,14' },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'diglot-cost-'));
  let url;
  let admin;
  if (values.db === 'postgres') {
    const pg = (await import(join(root, 'node_modules/pg/lib/index.js'))).default;
    admin = new pg.Client({ connectionString: values.pg });
    await admin.connect();
    await admin.query('DROP DATABASE IF EXISTS diglot_costbench');
    await admin.query('CREATE DATABASE diglot_costbench');
    url = new URL(values.pg);
    url.pathname = '/diglot_costbench';
    url = url.toString();
  }
  const child = fork(import.meta.filename, ['serve', JSON.stringify({ dir, url, users: Number(values.users), posts: Number(values.posts) })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise((done) => child.once('message', done));
  const base = `http://127.0.0.1:${port}`;
  try {
    const left = async () => remaining(await fetch(`${base}/users/1?fields=id`));
    const post = (query) => fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
    console.log(`${values.db}: ${values.users} users, ${values.posts} posts`);
    console.log('\nfragment bomb (POST /graphql)');
    console.log('levels | bytes | answer ms | code | points charged | /healthz ms meanwhile');
    for (const levels of values.levels.split(',').map(Number)) {
      const query = bomb(levels);
      const before = await left();
      const started = performance.now();
      const answer = post(query).then(async (response) => ({ ms: performance.now() - started, response, body: await response.json() }));
      await new Promise((done) => setTimeout(done, 20));
      const healthStart = performance.now();
      await (await fetch(`${base}/healthz`)).text();
      const healthMs = performance.now() - healthStart;
      const { ms, response, body } = await answer;
      const after = remaining(response);
      const charged = after === undefined ? 0 : before - after;
      console.log(`${levels} | ${query.length} | ${ms.toFixed(1)} | ${body.errors?.[0]?.extensions?.code ?? 'data'} | ${charged} | ${healthMs.toFixed(1)}`);
    }

    console.log('\n20 aliased postsCount(filter: { body: { contains } })');
    const aliases = Array.from({ length: 20 }, (_, i) => `c${i}: postsCount(filter: { body: { contains: "zq${i}x" } })`).join(' ');
    for (let run = 0; run < 3; run++) {
      const before = await left();
      const started = performance.now();
      const response = await post(`{ ${aliases} }`);
      const body = await response.json();
      const ms = performance.now() - started;
      const after = remaining(response);
      console.log(`GraphQL: ${ms.toFixed(1)} ms, ${after === undefined ? '?' : before - after} points${body.errors === undefined ? '' : ` (${body.errors[0].extensions.code})`}`);
    }
    const before = await left();
    const started = performance.now();
    const rest = await fetch(`${base}/posts?count=true&limit=1&fields=id&filter[body][contains]=zq0x`);
    await rest.text();
    const after = remaining(rest);
    console.log(`REST /posts?count=true (one contains): ${rest.status}, ${(performance.now() - started).toFixed(1)} ms, ${after === undefined ? '?' : before - after} points`);
  } finally {
    child.send('stop');
    await new Promise((done) => child.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
    if (admin !== undefined) {
      await admin.query('DROP DATABASE IF EXISTS diglot_costbench WITH (FORCE)');
      await admin.end();
    }
  }
}

/** Points left, from the RateLimit header (`"anonymous";r=99990;t=60`). */
function remaining(response) {
  const match = /;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '');
  return match === null ? undefined : Number(match[1]);
}
