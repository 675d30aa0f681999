// Where should JSON be built: by the database or by Node? (issue 2's measurement)
// Run on a seeded example database:  npx diglot seed --db /tmp/demo.db && npx --no node bench/micro/json-building.mjs /tmp/demo.db
// Compares, per call: a page of 20 full users as one JSON string per row joined in Node (what the engine does),
// as one array built by SQLite, and as flat rows turned into JSON by Node; and a user with 10 posts and
// 10 followers as one statement building nested JSON (what the engine does) vs three flat queries.
import Database from 'better-sqlite3';

const file = process.argv[2] ?? 'diglot.db';
const db = new Database(file, { readonly: true });
const cols = db.prepare("select name from pragma_table_info('users')").all().map((r) => r.name);
const boolCols = new Set(['is_verified', 'is_private', 'email_notifications']);
const jsonCols = new Set(['interests', 'preferences']);
const camel = (c) => c.replace(/_([a-z])/g, (_, x) => x.toUpperCase());
const names = cols.map(camel);
const value = (a, c) =>
  boolCols.has(c) ? `CASE ${a}."${c}" WHEN 1 THEN json('true') WHEN 0 THEN json('false') END` : jsonCols.has(c) ? `json(${a}."${c}")` : `${a}."${c}"`;
const objExpr = (a) => `json_object(${cols.map((c) => `'${camel(c)}', ${value(a, c)}`).join(', ')})`;

const perRow = db.prepare(`SELECT ${objExpr('t')} AS j, t.id AS o0 FROM users t ORDER BY t.id LIMIT 21`);
const wholeArray = db.prepare(`SELECT json_group_array(json(j)) AS a FROM (SELECT ${objExpr('t')} AS j FROM users t ORDER BY t.id LIMIT 20)`);
const flat = db.prepare(`SELECT ${cols.map((c) => `t."${c}"`).join(', ')} FROM users t ORDER BY t.id LIMIT 21`);
const nested = db.prepare(
  `SELECT json_object('name', t0.name, ` +
    `'posts', json((SELECT json_group_array(json(s.j) ORDER BY s.o0 DESC, s.o1) FROM (SELECT json_object('title', p.title) AS j, p.created_at AS o0, p.id AS o1 FROM posts p WHERE p.author_id = t0.id ORDER BY p.created_at DESC, p.id LIMIT 10) s)), ` +
    `'followers', json((SELECT json_group_array(json(s.j) ORDER BY s.o0) FROM (SELECT json_object('name', u.name) AS j, u.id AS o0 FROM users u JOIN users_followers f ON f.target_id = u.id WHERE f.source_id = t0.id ORDER BY u.id LIMIT 10) s))) AS j ` +
    `FROM users t0 WHERE t0.id = ?`,
);
const oneUser = db.prepare('SELECT name FROM users WHERE id = ?');
const posts = db.prepare('SELECT title FROM posts WHERE author_id = ? ORDER BY created_at DESC, id LIMIT 10');
const followers = db.prepare('SELECT u.name FROM users u JOIN users_followers f ON f.target_id = u.id WHERE f.source_id = ? ORDER BY u.id LIMIT 10');

const cases = {
  'page of 20 users: JSON per row by SQLite, joined by Node (engine)': () => {
    const rows = perRow.all();
    rows.length = Math.min(rows.length, 20);
    return `[${rows.map((r) => r.j).join(',')}]`;
  },
  'page of 20 users: whole array built by SQLite': () => wholeArray.get().a,
  'page of 20 users: flat rows, JSON built by Node': () => {
    const rows = flat.all();
    rows.length = Math.min(rows.length, 20);
    return JSON.stringify(
      rows.map((r) => Object.fromEntries(cols.map((c, i) => [names[i], boolCols.has(c) ? (r[c] === null ? null : r[c] === 1) : jsonCols.has(c) && r[c] !== null ? JSON.parse(r[c]) : r[c]]))),
    );
  },
  'user + 10 posts + 10 followers: nested JSON in one statement (engine)': (id) => nested.get(id).j,
  'user + 10 posts + 10 followers: three flat queries assembled by Node': (id) =>
    JSON.stringify({ name: oneUser.get(id).name, posts: posts.all(id), followers: followers.all(id) }),
};

for (let round = 1; round <= 3; round++) {
  for (const [name, run] of Object.entries(cases)) {
    for (let i = 0; i < 2000; i++) run(String(1 + (i % 1000)));
    const n = 20_000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) run(String(1 + (i % 1000)));
    console.log(`round ${round}  ${(Number(process.hrtime.bigint() - start) / 1000 / n).toFixed(1).padStart(6)} µs  ${name}`);
  }
}
