// PostgreSQL's CPU per statement, for A/B runs of two (or more) spellings of the same question.
//
//   npm run bench -- --keep-db --workloads W1 --peers diglot-pg --quick   # leaves the data set in diglot_bench
//   node_modules/.bin/node bench/micro/pg-statement-cpu.mjs a.sql b.sql [--db postgres://…/diglot_bench] [--n 3000] [--loop]
//
// Each file holds one statement. Its parameters: a first line `-- ["<id>", 5, 50]` gives them as JSON, where
// "<id>" stands for a user id cycling over the bench's 100 ids; without it, `$1` is such an id and `$2`
// (if used) the page size 10. Every statement
// runs as a named prepared statement (as Diglot's and the hand-written servers' are) on one connection,
// one at a time, `--n` times a round, the files taking turns for `--rounds` rounds. Reported per file and
// round: the backend's CPU time (/proc/<pid>/stat, user + system, of the backend serving this connection:
// the database on the same machine, Linux only) over the statements, and the wall time with the round trip.
//
// `--loop` measures differences smaller than that can see (the CPU is read in ticks of 10 ms, and the round
// trips and the machine's noise move it by ±10%): each statement, its parameters written in, becomes the
// body of a PL/pgSQL function that runs it `--n` times (its plan cached, as a prepared statement's is) and
// adds up the length of every row's `j` column (Diglot's statements name their JSON so), so no row goes
// unread and the files can be seen to return the same text. Reported per file: the fastest and the median
// round of the function's own time, in µs a statement, and the number of characters returned.
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
    loop: { type: 'boolean', default: false },
  },
});
if (files.length === 0) throw new Error('name one or more .sql files');
const ID = '<id>';
const ids = Array.from({ length: 100 }, (_, i) => String(1 + ((i * 97) % 10_000)));

const statements = files.map((file) => {
  const text = readFileSync(file, 'utf8').trim().replace(/;$/, '');
  const fixed = text.startsWith('-- [') ? JSON.parse(text.slice(3, text.indexOf('\n'))) : undefined;
  const sql = fixed === undefined ? text : text.slice(text.indexOf('\n') + 1);
  const values = fixed ?? (sql.includes('$2') ? [ID, 10] : sql.includes('$1') ? [ID] : []);
  const params = (i) => values.map((value) => (value === ID ? ids[i % 100] : value));
  return { file, sql, values, params, rounds: [] };
});

const client = new pg.Client({ connectionString: options.db });
await client.connect();
const n = Number(options.n);
await (options.loop ? timeInLoops() : timeRoundTrips());
await client.end();

async function timeRoundTrips() {
  const { pid } = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0];
  /** The backend's CPU time so far, in µs (clock ticks of 10 ms). */
  const cpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  };
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
}

async function timeInLoops() {
  const literal = (value) => (value === ID ? '_id' : typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`);
  for (const [i, statement] of statements.entries()) {
    // Highest first, so that $1 does not replace the start of $10.
    const body = statement.values.reduceRight((sql, value, k) => sql.replaceAll(`$${k + 1}`, literal(value)), statement.sql);
    statement.fn = `pg_temp.statement_loop_${i}`;
    await client.query(
      `CREATE FUNCTION ${statement.fn}(n int) RETURNS bigint LANGUAGE plpgsql AS $body$
       DECLARE _id text; _total bigint := 0; _row record;
       BEGIN
         FOR _k IN 0..n - 1 LOOP
           _id := (1 + ((_k % 100) * 97) % 10000)::text;
           FOR _row IN ${body} LOOP _total := _total + coalesce(length(_row.j), 0); END LOOP;
         END LOOP;
         RETURN _total;
       END $body$`,
    );
  }
  // The files take turns, in an order that flips every round.
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const statement of round % 2 === 0 ? statements : [...statements].reverse()) {
      const started = process.hrtime.bigint();
      const { rows } = await client.query(`SELECT ${statement.fn}($1) AS total`, [n]);
      statement.rounds.push(Number(process.hrtime.bigint() - started) / 1e3 / n);
      statement.total = rows[0].total;
    }
  }
  for (const { file, rounds, total } of statements) {
    const sorted = [...rounds].sort((a, b) => a - b);
    console.log(`${file}: fastest ${sorted[0].toFixed(1)} µs, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs a statement · ${total} characters returned`);
  }
}
