import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist/cli/main.js');
/** Each test starts several CLI processes, each a few seconds on a busy machine. */
const CLI_TIMEOUT = 180_000;
const work = mkdtempSync(join(tmpdir(), 'diglot-guard-'));

/** The CLI runs from its compiled output, as users run it. */
beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { encoding: 'utf8' });
  expect(build.status, build.stdout + build.stderr).toBe(0);
}, 120_000);

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function diglot(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const V1 = `type Note {
  id: ID!
  title: String!
  body: String
}
`;

function schemaFile(name: string, text: string): string {
  const file = join(work, name);
  writeFileSync(file, text);
  return file;
}

describeEachDialect('diglot diff, and migrate/serve refusing breaking changes', (ctx) => {
  it('diff --from <database> reads the schema migrate recorded and exits 1 on a breaking change', async () => {
    await ctx.reset();
    const v1 = schemaFile('v1.graphql', V1);
    const v2 = schemaFile('v2.graphql', V1.replace('  body: String\n', ''));
    expect((await diglot(['migrate', '--schema', v1, '--db', ctx.url])).status).toBe(0);

    const text = await diglot(['diff', '--from', ctx.url, '--to', v2]);
    expect(text.status, text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^BREAKING \(\d+\)$/m);
    // A removal is placed in the old schema, as it was recorded.
    expect(text.stdout).toContain(`${v1}:4:3 [GraphQL] Field 'body' was removed from object type 'Note'`);
    expect(text.stdout).toContain(`${v1}:4:3 [REST] Note.body is no longer in responses`);

    const json = await diglot(['diff', '--from', ctx.url, '--to', v2, '--json']);
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as { breaking: number; changes: { class: string; styles: string[]; file: string; line: number; column: number }[] };
    expect(report.breaking).toBeGreaterThan(0);
    expect(report.changes).toContainEqual(expect.objectContaining({ class: 'breaking', styles: ['rest'], file: v1, line: 4, column: 3 }));

    // SDL to SDL, nothing breaking: exit 0.
    const added = schemaFile('v1b.graphql', V1.replace('  body: String\n', '  body: String\n  subtitle: String\n'));
    const safe = await diglot(['diff', '--from', v1, '--to', added]);
    expect(safe.status, safe.stderr).toBe(0);
    expect(safe.stdout).toMatch(/^SAFE \(\d+\)$/m);
    expect(safe.stdout).not.toMatch(/BREAKING/);
  }, CLI_TIMEOUT);

  it('diff --from <database>: a type and a list renamed with @renamed keep their REST routes, deprecated, not removed', async () => {
    await ctx.reset();
    const tagged = `type Note {\n  id: ID!\n  title: String!\n  tags: [Tag!]!\n}\n\ntype Tag {\n  id: ID!\n  label: String!\n  notes: [Note!]!\n}\n`;
    const v1 = schemaFile('r1.graphql', tagged);
    const v2 = schemaFile(
      'r2.graphql',
      tagged.replaceAll('Tag!', 'Label!').replace('type Tag {', 'type Label @renamed(from: "Tag") {').replace('  tags: [Label!]!', '  labels: [Label!]! @renamed(from: "tags")'),
    );
    expect((await diglot(['migrate', '--schema', v1, '--db', ctx.url])).status).toBe(0);
    const json = await diglot(['diff', '--from', ctx.url, '--to', v2, '--json']);
    const report = JSON.parse(json.stdout) as { changes: { class: string; styles: string[]; message: string; file: string; line: number }[] };
    const rest = report.changes.filter((change) => change.styles.includes('rest'));
    expect(rest.filter((change) => change.class !== 'safe').map((change) => change.message)).toEqual([]);
    // Each old route is kept, deprecated, and placed at the rename that keeps it.
    for (const route of ['GET /tags', 'POST /tags', 'DELETE /tags/{id}']) {
      expect(rest).toContainEqual(expect.objectContaining({ class: 'safe', message: `Route ${route} was deprecated`, file: v2, line: 7 }));
    }
    for (const route of ['GET /tags/{id}/notes', 'PUT /tags/{id}/notes/{targetId}']) {
      expect(rest).toContainEqual(expect.objectContaining({ class: 'safe', message: `Route ${route} was deprecated`, file: v2, line: 10 }));
    }
    expect(rest).toContainEqual(expect.objectContaining({ class: 'safe', message: 'Route GET /notes/{id}/tags was deprecated', file: v2, line: 4 }));
    // GraphQL keeps the old root fields, mutations and change events; only the type's own name cannot be kept (docs/schema.md).
    const graphql = report.changes.filter((change) => change.styles.includes('graphql') && change.class === 'breaking').map((change) => change.message);
    expect(graphql).toContain("Type 'Tag' was removed");
    expect(graphql.filter((message) => / was removed from object type '(Query|Mutation|Subscription)'/.test(message))).toEqual([]);
  }, CLI_TIMEOUT);

  it('migrate and serve refuse a breaking change, naming each and the flag; --allow-breaking applies it', async () => {
    await ctx.reset();
    const v1 = schemaFile('g1.graphql', V1);
    const v2 = schemaFile('g2.graphql', V1.replace('  body: String\n', ''));
    expect((await diglot(['migrate', '--schema', v1, '--db', ctx.url])).status).toBe(0);

    const refused = await diglot(['migrate', '--schema', v2, '--db', ctx.url, '--allow-destructive']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${v2.replace('g2', 'g1')}:4:3 [GraphQL] Field 'body' was removed`);
    expect(refused.stderr).toContain('pass --allow-breaking');
    expect(refused.stderr).toContain('--allow-destructive is separate');

    const served = await diglot(['serve', '--schema', v2, '--db', ctx.url, '--port', '0']);
    expect(served.status).toBe(1);
    expect(served.stderr).toContain('pass --allow-breaking');

    // Breaking is allowed, but dropping the column's data is a separate decision.
    const destructive = await diglot(['migrate', '--schema', v2, '--db', ctx.url, '--allow-breaking']);
    expect(destructive.status).toBe(1);
    expect(destructive.stderr).toContain('--allow-destructive');
    expect(destructive.stderr).not.toContain('pass --allow-breaking');

    const applied = await diglot(['migrate', '--schema', v2, '--db', ctx.url, '--allow-breaking', '--allow-destructive']);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('breaking change applied (--allow-breaking)');
    expect(applied.stderr).toMatch(/migrating: step 1 of \d+: .*body/);
    // Now recorded: the same schema again has nothing to compare.
    expect((await diglot(['diff', '--from', ctx.url, '--to', v2])).status).toBe(0);
  }, CLI_TIMEOUT);

  it('two migrators started at once migrate once, and both finish on the new schema', async () => {
    await ctx.reset();
    const v1 = schemaFile('c1.graphql', V1);
    const v2 = schemaFile('c2.graphql', V1.replace('  body: String\n', '  body: String\n  tag: String @index\n  rank: Int! @default(value: 1)\n'));
    expect((await diglot(['migrate', '--schema', v1, '--db', ctx.url])).status).toBe(0);
    const runs = await Promise.all([diglot(['migrate', '--schema', v2, '--db', ctx.url]), diglot(['migrate', '--schema', v2, '--db', ctx.url])]);
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    const applied = runs.filter((run) => run.stdout.startsWith('Applied:'));
    const idle = runs.filter((run) => run.stdout.startsWith('The database already matches the schema'));
    expect([applied.length, idle.length]).toEqual([1, 1]);
    const db = await ctx.open();
    const versions = await db.all<{ n: number | string }>('SELECT count(*) AS n FROM _diglot_migrations');
    expect(Number(versions[0]?.n)).toBe(2);
    const notes = (await db.schema.introspect(db)).tables.get('notes');
    expect(notes?.columns.map((column) => column.name)).toEqual(expect.arrayContaining(['tag', 'rank']));
    expect(notes?.indexes.map((index) => index.name)).toContain('notes_tag_by_id_idx');
  }, CLI_TIMEOUT);
});
