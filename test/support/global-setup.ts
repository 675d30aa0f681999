/**
 * Runs once before all test files: decides whether the PostgreSQL half of
 * the dialect suites can run, and tells the workers through the environment
 * (`DIGLOT_PG_AVAILABLE`, read by `describeEachDialect`). Locally an
 * unreachable server skips that half with one line of explanation; in CI
 * (`CI` set) it fails the run, because CI must test both databases.
 */
import pg from 'pg';

export const DEFAULT_TEST_PG = 'postgres://postgres@127.0.0.1:5432/test';

/** Throwaway databases are named `diglot_t_<unix seconds>_<random>`; ones left by a crashed run are dropped after this long. */
const STALE_AFTER_SECONDS = 3600;

export default async function setup(): Promise<void> {
  const url = process.env['DIGLOT_TEST_PG'] ?? DEFAULT_TEST_PG;
  process.env['DIGLOT_TEST_PG'] = url;
  const failure = await probe(url);
  const shown = url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  if (failure === undefined) {
    process.env['DIGLOT_PG_AVAILABLE'] = '1';
    process.stderr.write(`PostgreSQL suite: running against ${shown} (a throwaway database per test file)\n`);
    return;
  }
  process.env['DIGLOT_PG_AVAILABLE'] = '0';
  if (process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false') {
    throw new Error(`CI needs PostgreSQL but cannot reach ${shown} (${failure}); start it or set DIGLOT_TEST_PG=postgres://…`);
  }
  process.stderr.write(
    `PostgreSQL suite skipped: cannot reach ${shown} — start PostgreSQL or set DIGLOT_TEST_PG=postgres://… to enable it\n`,
  );
}

/** Undefined when the server answers; else why not. Also drops databases stale runs left behind. */
async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    const stale = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname ~ '^diglot_t_[0-9]+_' ` +
        `AND split_part(datname, '_', 3)::bigint < extract(epoch FROM now())::bigint - ${STALE_AFTER_SECONDS}`,
    );
    for (const row of stale.rows) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || (error as { code?: string }).code || 'no answer' : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}
