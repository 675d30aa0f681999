// PostgreSQL's CPU per statement, for A/B runs of two (or more) spellings of the same question.
//
//   npm run bench -- --keep-db --workloads W1 --peers diglot-pg --quick   # leaves the data set in diglot_bench
//   node_modules/.bin/node bench/micro/pg-statement-cpu.mjs a.sql b.sql [--db postgres://…/diglot_bench] [--n 3000]
//
// Each file holds one statement. Its parameters: a first line `-- ["<id>", 5, 50]` gives them as JSON, where
// "<id>" stands for a user id cycling over the bench's 100 ids; without it, `$1` is such an id and `$2`
// (if used) the page size 10. Every statement
// runs as a named prepared statement (as Diglot's and the hand-written servers' are) on one connection,
// one at a time, `--n` times a round, the files taking turns for `--rounds` rounds. Reported per file and
// round: the backend's CPU time (/proc/<pid>/stat, user + system, of the backend serving this connection:
// the database on the same machine, Linux only) over the statements, and the wall time with the round trip.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '../..');
const pg = createRequire(join(root, 'package.json'))('pg');
const { values: options, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/diglot_bench' },
    n: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
  },
});
if (files.length === 0) throw new Error('name one or more .sql files');
const ids = Array.from({ length: 100 }, (_, i) => String(1 + ((i * 97) % 10_000)));

const statements = files.map((file) => {
  const text = readFileSync(file, 'utf8').trim().replace(/;$/, '');
  const fixed = text.startsWith('-- [') ? JSON.parse(text.slice(3, text.indexOf('\n'))) : undefined;
  const sql = fixed === undefined ? text : text.slice(text.indexOf('\n') + 1);
  const params = (i) =>
    fixed?.map((value) => (value === '<id>' ? ids[i % 100] : value)) ?? (sql.includes('$2') ? [ids[i % 100], 10] : sql.includes('$1') ? [ids[i % 100]] : []);
  return { file, sql, params, rounds: [] };
});

const client = new pg.Client({ connectionString: options.db });
await client.connect();
const { pid } = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0];
/** The backend's CPU time so far, in µs (clock ticks of 10 ms). */
const cpu = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

const n = Number(options.n);
for (let round = 0; round < Number(options.rounds); round++) {
  for (const statement of statements) {
    const run = (i) => client.query({ name: statement.file, text: statement.sql, values: statement.params(i), rowMode: 'array' });
    // Past PostgreSQL's five custom plans, so the rounds measure the plan a server keeps.
    for (let i = 0; i < 20; i++) await run(i);
    const cpuBefore = cpu();
    const wallBefore = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await run(i);
    const wall = Number(process.hrtime.bigint() - wallBefore) / 1e3 / n;
    statement.rounds.push(`${((cpu() - cpuBefore) / n).toFixed(0)} µs CPU / ${wall.toFixed(0)} µs wall`);
  }
}
for (const statement of statements) console.log(`${statement.file}: ${statement.rounds.join(' · ')}`);
await client.end();
