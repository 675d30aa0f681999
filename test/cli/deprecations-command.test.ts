import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSchema } from '../../src/schema/load-schema.js';
import { addDeprecationUses } from '../../src/storage/deprecation-uses.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { describeEachDialect } from '../support/databases.js';
import { DEPRECATIONS_SCHEMA } from '../support/deprecations-schema.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'dist/cli/main.js');
const work = mkdtempSync(join(tmpdir(), 'diglot-deprecations-'));
const schemaFile = join(work, 'schema.graphql');

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { encoding: 'utf8' });
  expect(build.status, build.stdout + build.stderr).toBe(0);
  writeFileSync(schemaFile, DEPRECATIONS_SCHEMA);
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DAY = 86_400_000;

describeEachDialect('diglot deprecations', (ctx) => {
  const diglot = (...args: string[]) => spawnSync(process.execPath, [BIN, 'deprecations', '--schema', schemaFile, '--db', ctx.url, ...args], { encoding: 'utf8', cwd: work, timeout: 60_000 });

  beforeAll(async () => {
    const result = loadSchema([{ file: schemaFile, text: DEPRECATIONS_SCHEMA }]);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const db = await ctx.open();
    await migrate(db, result.model, { allowDestructive: false, dryRun: false });
    const now = Date.now();
    await addDeprecationUses(db, [
      { coordinate: 'Author.nick', client: 'ios-app', caller: 'key', uses: 40, firstSeen: now - 90 * DAY, lastSeen: now - DAY },
      { coordinate: 'Author.nick', client: 'web', caller: 'ip', uses: 2, firstSeen: now - 50 * DAY, lastSeen: now - 45 * DAY },
      { coordinate: 'Role.GUEST', client: 'web', caller: 'ip', uses: 3, firstSeen: now - 80 * DAY, lastSeen: now - 60 * DAY },
    ]);
    await db.close();
  });

  it('--json: each deprecated thing, the never used first, then the longest unused, with uses per client', () => {
    const run = diglot('--json');
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { quietDays: number; deprecations: { coordinate: string; uses: number; quiet: boolean; since: string | null; sunset: string | null; clients: { client: string; caller: string; uses: number }[] }[] };
    expect(report.quietDays).toBe(30);
    expect(report.deprecations.map((row) => [row.coordinate, row.uses, row.quiet])).toEqual([
      ['Author.avatar(size:)', 0, true],
      ['Author.books', 0, true],
      ['Pamphlet', 0, true],
      ['Role.GUEST', 3, true],
      ['Author.nick', 42, false],
    ]);
    const nick = report.deprecations.at(-1);
    expect(nick?.sunset).toBe('2027-06-30');
    expect(nick?.clients.map((client) => [client.client, client.caller, client.uses])).toEqual([
      ['ios-app', 'key', 40],
      ['web', 'ip', 2],
    ]);
    expect(report.deprecations.find((row) => row.coordinate === 'Pamphlet')?.since).toBe('2026-03-01');
  });

  it('a table for people; --quiet-days moves the line', () => {
    const run = diglot('--quiet-days', '0');
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DEPRECATED\s+KIND\s+SINCE\s+SUNSET\s+USES\s+LAST SEEN\s+UNUSED 0D\s+CLIENTS\s+REASON$/);
    const nick = lines.find((line) => line.startsWith('Author.nick'));
    expect(nick).toMatch(/^Author\.nick\s+field\s+\S+\s+2027-06-30\s+42\s+\S+\s+yes\s+ios-app \(key\) 40, web \(ip\) 2\s+Use name\.$/);
    expect(lines).toHaveLength(6);
  });
});
