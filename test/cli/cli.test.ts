import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serverNodeFlags, SMALL_HEAP_BYTES } from '../../src/cli/heap-flags.js';
import { describeEachDialect } from '../support/databases.js';
import { http, untilCode } from '../support/http.js';
import { EXAMPLE_SCHEMA, startServer } from '../support/start-server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist/cli/main.js');
/** The flags `serve` gives itself for the SQLite file these tests serve. */
const SERVER_NODE_FLAGS = serverNodeFlags('a.db');
const work = mkdtempSync(join(tmpdir(), 'diglot-cli-'));

/** The CLI runs from its compiled output, as users run it; build it once for this file. */
beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { encoding: 'utf8' });
  expect(build.status, build.stdout + build.stderr).toBe(0);
}, 120_000);

function diglot(args: readonly string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 });
}

/** As diglot(), without blocking this process (which may be holding a port the command needs to find taken). */
function diglotAsync(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function writeSchema(name: string, text: string): string {
  const file = join(work, name);
  writeFileSync(file, text);
  return file;
}

describe('diglot check', () => {
  it('accepts the example', () => {
    const result = diglot(['check', '--schema', EXAMPLE_SCHEMA]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('no problems');
  });

  it('reports three mistakes as three located lines and exits non-zero', () => {
    const file = writeSchema(
      'three.graphql',
      ['type User {', '  id: ID!', '  best: Usr', '  email: String! @uniqe', '  age: Int @default(value: "old")', '}', ''].join('\n'),
    );
    const result = diglot(['check', '--schema', file]);
    expect(result.status).toBe(1);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith(file));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/:3:\d+ SCHEMA_UNKNOWN_TYPE .*User/);
    expect(lines[1]).toMatch(/:4:\d+ SCHEMA_UNKNOWN_DIRECTIVE .*unique/);
    expect(lines[2]).toMatch(/:5:\d+ SCHEMA_BAD_DEFAULT/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses the names the server takes for itself, each where it is written, with a suggestion where there is one', () => {
    const file = writeSchema(
      'reserved.graphql',
      ['type AdminNote {', '  id: ID!', '}', 'type File { id: ID! }', 'type Me { id: ID! }', 'type Event { id: ID! }', 'type Admin { id: ID! }', ''].join('\n'),
    );
    const result = diglot(['check', '--schema', file]);
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n').filter((line) => line.startsWith(file))).toEqual([
      `${file}:1:6 SCHEMA_RESERVED_NAME "AdminNote" is in the admin API's namespace (its GraphQL types are named Admin…, its fields admin…); choose another name. (did you mean Note?)`,
      `${file}:4:6 SCHEMA_RESERVED_NAME Type "File" would be served at /files, which is the server's own (uploaded files); choose another name.`,
      `${file}:5:6 SCHEMA_RESERVED_NAME Type "Me" would have the GraphQL field "me", which is the server's own (the signed-in account); choose another name.`,
    ]);
  });

  it('points inside a broken permission rule, at the token', () => {
    const file = writeSchema(
      'rule.graphql',
      ['type Post {', '  id: ID!', '  status: String', '}', 'extend type Post @allow(read: "auth.id != null && stauts == 1")', ''].join('\n'),
    );
    const result = diglot(['check', '--schema', file]);
    expect(result.status).toBe(1);
    // The string opens at column 31; "stauts" is 19 characters into the rule.
    expect(result.stderr.split('\n').filter((line) => line.startsWith(file))).toEqual([
      `${file}:5:51 RULE_UNKNOWN_FIELD "stauts" is not a field of Post. (did you mean status?)`,
    ]);
  });
});

describe('secure by default', () => {
  it('refuses to serve a schema without rules beyond loopback, before touching any database', () => {
    const schema = writeSchema('open.graphql', 'type Note { id: ID!\n  text: String! }\n');
    const db = join(work, 'open.db');
    const refused = diglot(['serve', '--schema', schema, '--db', db, '--host', '0.0.0.0', '--port', '0']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--allow-open-writes');
    expect(existsSync(db)).toBe(false);
  });
});

describe('diglot --version', () => {
  it("prints package.json's version", () => {
    const result = diglot(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });
});

/** The CLI run in `cwd` (a user's own folder), with a clean environment of Diglot variables. */
function diglotIn(cwd: string, args: readonly string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIGLOT_') && name !== 'PORT' && name !== 'HOST'));
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd, env: { ...clean, ...env }, timeout: 60_000 });
}

describe('a new project: init, the configuration file, the schema looked for', () => {
  it('serve in a folder without a schema says what it looked for, and creates nothing', () => {
    const folder = mkdtempSync(join(work, 'empty-'));
    const result = diglotIn(folder, ['serve', '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('no schema: looked for --schema, DIGLOT_SCHEMA, "schema" in diglot.config.json, and ./schema.graphql');
    expect(result.stderr).toContain('diglot init');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('init writes a project that check accepts from ./schema.graphql, and refuses to run twice', () => {
    const folder = mkdtempSync(join(work, 'init-'));
    const first = diglotIn(folder, ['init']);
    expect(first.status, first.stderr).toBe(0);
    expect(readdirSync(folder).sort()).toEqual(['.gitignore', 'diglot.config.json', 'schema.graphql']);
    const check = diglotIn(folder, ['check']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toContain('2 types');
    const again = diglotIn(folder, ['init']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already exist');
  });

  it('takes a flag over the environment over the configuration file, and refuses an unknown key where it is written', () => {
    const folder = mkdtempSync(join(work, 'config-'));
    writeFileSync(join(folder, 'a.graphql'), 'type Alpha { id: ID!\n name: String! }\n');
    writeFileSync(join(folder, 'b.graphql'), 'type Beta { id: ID!\n name: String! }\ntype Gamma { id: ID! }\n');
    writeFileSync(join(folder, 'c.graphql'), 'type Delta { id: ID! }\ntype Epsilon { id: ID! }\ntype Zeta { id: ID! }\n');
    writeFileSync(join(folder, 'diglot.config.json'), '{\n  // the model\n  "schema": ["a.graphql"],\n}\n');
    expect(diglotIn(folder, ['check']).stdout).toContain('1 types');
    expect(diglotIn(folder, ['check'], { DIGLOT_SCHEMA: 'b.graphql' }).stdout).toContain('2 types');
    expect(diglotIn(folder, ['check', '--schema', 'c.graphql'], { DIGLOT_SCHEMA: 'b.graphql' }).stdout).toContain('3 types');
    writeFileSync(join(folder, 'other.json'), '{\n  "schema": ["a.graphql"],\n  "prot": 4000\n}\n');
    const refused = diglotIn(folder, ['--config', 'other.json', 'check']);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('diglot: other.json:3:3 unknown option "prot"; did you mean "port"?');
    const missing = diglotIn(folder, ['check'], { DIGLOT_CONFIG: 'nowhere.json' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('nowhere.json');
  });

  it('init, then start, then a REST and a GraphQL request', async () => {
    const folder = mkdtempSync(join(work, 'first-run-'));
    const init = diglotIn(folder, ['init']);
    expect(init.status).toBe(0);
    // It names the command the README names.
    expect(init.stdout).toContain('Next: `npx diglot start`');
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIGLOT_')));
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], { cwd: folder, env: { ...clean, DIGLOT_LOG_LEVEL: 'warn' } });
    try {
      let banner = '';
      let stderr = '';
      const origin = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          banner += chunk.toString();
          const match = /REST API\s+(http:\/\/[^/\s]+)/.exec(banner);
          if (match?.[1] !== undefined && banner.includes('Member')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${stderr}`)));
      });
      const members = await fetch(`${origin}/members?limit=2&fields=name`);
      expect(members.status).toBe(200);
      expect(((await members.json()) as { data: unknown[] }).data).toHaveLength(2);
      const graphql = await fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ members(first: 1) { name } }' }),
      });
      expect(graphql.status).toBe(200);
      expect(((await graphql.json()) as { errors?: unknown }).errors).toBeUndefined();
      expect(readdirSync(folder)).toContain('diglot.db');
      // The template is an app one signs up to and uses at once: sign up, then write a note with the token.
      const signUp = await http(origin, 'POST', '/auth/sign-up', { body: { name: 'Ada', email: 'ada@example.com', password: 'analytical engine 1843' } });
      expect(signUp.status, signUp.text).toBe(201);
      const token = signUp.json.accessToken as string;
      const note = await http(origin, 'POST', '/notes', { body: { title: 'First note' }, headers: { authorization: `Bearer ${token}` } });
      expect(note.status, note.text).toBe(201);
      expect(note.json.author).toBe(signUp.json.accountId);
      // A stranger may not write one, nor read the private note.
      expect((await http(origin, 'POST', '/notes', { body: { title: 'Anonymous' } })).status).toBe(403);
      expect((await http(origin, 'GET', `/notes/${String(note.json.id)}`)).status).toBe(404);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('docs/tasks.md', () => {
  /** The `sh` blocks under a `## heading` of docs/tasks.md, one command a line. */
  const commandsUnder = (heading: string): string[] => {
    const text = readFileSync(join(ROOT, 'docs/tasks.md'), 'utf8');
    const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
    if (section === undefined) throw new Error(`docs/tasks.md has no section "${heading}"`);
    return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => (block[1] ?? '').split('\n').filter((line) => line.trim() !== ''));
  };
  const run = (command: string): Promise<{ status: number | null; stdout: string }> =>
    new Promise((resolve) => {
      const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.once('close', (status) => resolve({ status, stdout }));
    });

  it("signs up, signs in and watches a query live as written, in a project init made (the sign-up and live sections' commands)", async () => {
    const folder = mkdtempSync(join(work, 'tasks-'));
    expect(diglotIn(folder, ['init']).status).toBe(0);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIGLOT_')));
    const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], { cwd: folder, env: { ...clean, DIGLOT_LOG_LEVEL: 'warn' } });
    try {
      let banner = '';
      const origin = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          banner += chunk.toString();
          const match = /REST API\s+(http:\/\/[^/\s]+)/.exec(banner);
          if (match?.[1] !== undefined && banner.includes('Member')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${banner}`)));
      });
      const here = (command: string): string => command.replaceAll('http://127.0.0.1:4000', origin);

      const [signUp, signIn, ...rest] = commandsUnder('Let users sign up');
      expect(rest).toEqual([]);
      const up = await run(here(signUp as string));
      expect(up.status).toBe(0);
      expect(JSON.parse(up.stdout)).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
      const token = (JSON.parse((await run(here(signIn as string))).stdout) as { accessToken: string }).accessToken;
      expect(token).toEqual(expect.any(String));

      // Each live command prints the answer now; curl -N keeps reading until its time is up (exit 28).
      const live = commandsUnder('Watch a query live');
      expect(live).toHaveLength(2);
      const watched = await Promise.all(live.map((command) => run(here(command).replace(/^curl /, 'curl --max-time 6 '))));
      for (const [index, outcome] of watched.entries()) {
        expect(outcome.status, live[index]).toBe(28);
        expect(outcome.stdout, live[index]).toMatch(/^data: /m);
      }
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('a busy port', () => {
  it.each(['serve', 'start'])('%s names the port, exits non-zero and leaves no database behind', async (command) => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const db = join(mkdtempSync(join(work, 'busy-')), 'busy.db');
      const result = await diglotAsync([command, '--schema', EXAMPLE_SCHEMA, '--db', db, '--port', String(port)]);
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toBe(`diglot: port ${port} is in use (EADDRINUSE); choose another with --port`);
      expect(readdirSync(dirname(db))).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('clear one-line errors', () => {
  it('a file that is not a SQLite database', () => {
    const file = join(work, 'not-a-db.txt');
    writeFileSync(file, 'hello, this is text and not a database at all '.repeat(200));
    const result = diglot(['serve', '--schema', EXAMPLE_SCHEMA, '--db', file, '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('not a SQLite database');
  });

  it('a --cors-origin (or DIGLOT_CORS_ORIGIN) entry that is not an origin, before touching any database', () => {
    const db = join(work, 'cors.db');
    const flag = diglot(['serve', '--schema', EXAMPLE_SCHEMA, '--db', db, '--port', '0', '--cors-origin', 'https://app.example.com/path']);
    expect(flag.status).toBe(1);
    expect(flag.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^diglot: --cors-origin: "https:\/\/app\.example\.com\/path" is not an origin/)]);
    const env = diglot(['serve', '--schema', EXAMPLE_SCHEMA, '--db', db, '--port', '0'], { DIGLOT_CORS_ORIGIN: '*,https://app.example.com' });
    expect(env.status).toBe(1);
    expect(env.stderr).toContain('--cors-origin: * allows every origin; give it alone');
    expect(existsSync(db)).toBe(false);
  });

  it('a --trust-proxy entry that is not an address or range, before touching any database', () => {
    const db = join(work, 'proxy.db');
    const result = diglot(['serve', '--schema', EXAMPLE_SCHEMA, '--db', db, '--port', '0'], { DIGLOT_TRUST_PROXY: '10.0.0.0/8,10.0.0.0/33' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^diglot: DIGLOT_TRUST_PROXY: "10\.0\.0\.0\/33" is not an address/)]);
    expect(existsSync(db)).toBe(false);
  });

  it('an unreachable PostgreSQL server', () => {
    const result = diglot(['serve', '--schema', EXAMPLE_SCHEMA, '--db', 'postgres://postgres@127.0.0.1:1/nothing', '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

/** Starts `diglot serve` on a new SQLite file; resolves once it prints its URL. */
async function serveProcess(env: Record<string, string>, ipc = false): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--schema', EXAMPLE_SCHEMA, '--db', join(mkdtempSync(join(work, 'serve-')), 'a.db'), '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
  });
  servers.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/REST API\s+http:\/\//.test(out)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
  });
  return child;
}

const servers: ChildProcess[] = [];
afterEach(() => {
  for (const child of servers.splice(0)) child.kill('SIGKILL');
});

/** The Node flags a running process was started with, from /proc (Linux, where CI runs). */
function nodeFlagsOf(pid: number | undefined): string[] {
  const args = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
  return args.slice(1, args.indexOf(BIN));
}

// Which commands and flags restart is unit-tested in src/cli/heap-flags.test.ts; these check the real process.
describe.runIf(process.platform === 'linux')('the server process', () => {
  it('bounds its young generation: serve replaces its process with one started with the server flags', async () => {
    const child = await serveProcess({ NODE_OPTIONS: '' });
    // On a host with little memory V8's own limit is lower than the flag's, and the process stays as started.
    const bounded = getHeapStatistics().heap_size_limit > SMALL_HEAP_BYTES;
    expect(SERVER_NODE_FLAGS.every((flag) => nodeFlagsOf(child.pid).includes(flag))).toBe(bounded);
    // Same process, still answering signals: a clean shutdown.
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it("keeps the user's own choice from NODE_OPTIONS", async () => {
    const child = await serveProcess({ NODE_OPTIONS: '--max-semi-space-size=32' });
    expect(nodeFlagsOf(child.pid).some((flag) => flag.startsWith('--max-semi-space-size'))).toBe(false);
  });

  it('stays as started under a parent with an IPC channel (whose descriptor would not survive), and serves', async () => {
    const child = await serveProcess({ NODE_OPTIONS: '' }, true);
    expect(SERVER_NODE_FLAGS.some((flag) => nodeFlagsOf(child.pid).includes(flag))).toBe(false);
    expect(child.connected).toBe(true);
  });
});

describe.runIf(process.platform === 'linux')('log output', () => {
  /** Runs `diglot serve` (through `script` for a terminal), sends one request, and returns the log line it wrote and all of stdout. */
  async function logLineOf(terminal: boolean): Promise<{ line: string; stdout: string }> {
    const args = [BIN, 'serve', '--schema', EXAMPLE_SCHEMA, '--db', join(mkdtempSync(join(work, 'log-')), 'a.db'), '--port', '0'];
    // util-linux's script gives the command a pseudo-terminal as its stdout, as a person's terminal would.
    const child = terminal
      ? spawn('script', ['-qfec', [process.execPath, ...args].map((arg) => `'${arg}'`).join(' '), '/dev/null'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info' } })
      : spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info' } });
    servers.push(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const waitFor = (pattern: RegExp, from: () => string): Promise<RegExpExecArray> =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(from());
          if (match !== null) resolve(match);
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${out}${err}`)));
        check();
      });
    // Under `script` both streams reach its stdout; piped, the banner is on stderr.
    const origin = (await waitFor(/REST API\s+(http:\/\/[^/\s]+)/, () => out + err))[1] as string;
    expect((await fetch(`${origin}/users?limit=1`, { headers: { 'x-request-id': 'log-test' } })).status).toBe(200);
    const line = (await waitFor(/^.*log-test.*$/m, () => out))[0];
    return { line, stdout: out };
  }

  it('is one JSON object a line when stdout is not a terminal, with nothing else on stdout (the banner is on stderr)', async () => {
    const { line, stdout } = await logLineOf(false);
    expect(JSON.parse(line)).toMatchObject({ level: 30, reqId: 'log-test', method: 'GET', url: '/users?limit=1', status: 200, msg: expect.stringMatching(/^GET \/users\?limit=1 200 [\d.]+ ms$/) });
    const lines = stdout.split('\n').filter((text) => text !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const text of lines) expect(() => JSON.parse(text) as unknown, text).not.toThrow();
  });

  it('is a pretty, coloured line with a wall-clock time on a terminal', async () => {
    const { line } = await logLineOf(true);
    expect(line).toContain('\u001b[');
    // eslint-disable-next-line no-control-regex -- the colours are checked above; the words here
    expect(line.replace(/\u001b\[\d+m/g, '').trim()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/users\?limit=1 200 [\d.]+ ms \{"reqId":"log-test"\}$/);
  });
});

describeEachDialect('diglot migrate and start', (ctx) => {
  it('--dry-run prints the plan and applies nothing; then migrate applies it once', () => {
    const dry = diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/create table/i);
    expect(dry.stdout).toContain('dry run');
    const again = diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--dry-run']);
    expect(again.stdout).toMatch(/create table/i);
    const applied = diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url]);
    expect(applied.status, applied.stderr).toBe(0);
    const noop = diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--dry-run']);
    expect(noop.stdout).not.toMatch(/create table/i);
  });

  it('refuses a destructive change without --allow-destructive', async () => {
    await ctx.reset();
    const base = ['type Note {', '  id: ID!', '  title: String!', '  body: String', '}', ''].join('\n');
    const v1 = writeSchema(`note-v1-${ctx.dialect}.graphql`, base);
    const v2 = writeSchema(`note-v2-${ctx.dialect}.graphql`, base.replace('  body: String\n', ''));
    expect(diglot(['migrate', '--schema', v1, '--db', ctx.url]).status).toBe(0);
    // Dropping a field also breaks its clients: that is allowed here, to see the data-loss refusal on its own (test/cli/schema-guard.test.ts has the other).
    const refused = diglot(['migrate', '--schema', v2, '--db', ctx.url, '--allow-breaking']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('MIGRATION_DESTRUCTIVE');
    // The refusal names the command that applies it, and serve (which has no such flag) names the same one.
    expect(refused.stderr).toContain('`diglot migrate --allow-destructive`');
    const served = diglot(['serve', '--schema', v2, '--db', ctx.url, '--port', '0', '--allow-breaking']);
    expect(served.status).toBe(1);
    expect(served.stderr).toContain('`diglot migrate --allow-destructive`');
    expect(served.stderr).not.toMatch(/Run it again with/);
    const dry = diglot(['migrate', '--schema', v2, '--db', ctx.url, '--dry-run']);
    expect(dry.stdout).toContain('Destructive steps run only with `diglot migrate --allow-destructive`');
    const allowed = diglot(['migrate', '--schema', v2, '--db', ctx.url, '--allow-destructive', '--allow-breaking']);
    expect(allowed.status, allowed.stderr).toBe(0);
    // A report of what was applied, step by step, and no hint to pass the flag that was passed.
    expect(allowed.stdout).toMatch(/^Applied: 1 step, 1 destructive\n {2}1\. \[destructive\] (rebuild table notes: )?drop column notes\.body\n/);
    expect(allowed.stdout).not.toContain('run only with');
    expect(diglot(['migrate', '--schema', v2, '--db', ctx.url]).stdout).toContain('nothing to do');
  }, 120_000);

  it('serve reports each step of a small migration it applies', async () => {
    await ctx.reset();
    const base = ['type Note {', '  id: ID!', '  title: String!', '}', ''].join('\n');
    const v1 = writeSchema(`grow-v1-${ctx.dialect}.graphql`, base);
    const v2 = writeSchema(`grow-v2-${ctx.dialect}.graphql`, base.replace('  title: String!\n', '  title: String!\n  body: String\n'));
    expect(diglot(['migrate', '--schema', v1, '--db', ctx.url]).status).toBe(0);
    const child = spawn(process.execPath, [BIN, 'serve', '--schema', v2, '--db', ctx.url, '--port', '0'], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn' } });
    servers.push(child);
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        if (err.includes('REST API')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
    });
    expect(err).toMatch(/^migrated: 1 step applied\n {2}add column notes\.body/m);
  }, 60_000);

  describe('start', () => {
    let child: ChildProcess;
    let origin: string;
    let banner = '';
    let stderr = '';
    const files = join(work, `files-${ctx.dialect}`);
    afterAll(() => {
      child.kill('SIGKILL');
    });

    /** Starts `diglot start`; resolves with its origin once the banner is out. */
    async function start(): Promise<string> {
      banner = '';
      stderr = '';
      child = spawn(process.execPath, [BIN, 'start', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--port', '0', '--files', files], {
        cwd: ROOT,
        env: { ...process.env, LOG_LEVEL: 'warn', DIGLOT_ADMIN_KEY: '', DIGLOT_JWT_SECRET: '' },
      });
      return new Promise<string>((resolve, reject) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          banner += chunk.toString();
          const match = /REST API\s+(http:\/\/[^/\s]+)/.exec(banner);
          if (match?.[1] !== undefined && banner.includes('Member')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${stderr}`)));
      });
    }

    const credential = (label: string): string => {
      const match = new RegExp(`^  ${label}\\s+(\\S+)`, 'm').exec(banner);
      if (match?.[1] === undefined) throw new Error(`no ${label} in ${banner}`);
      return match[1];
    };

    async function stop(): Promise<void> {
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    }

    it('migrates, seeds the demo data with progress, and serves', async () => {
      await ctx.reset();
      origin = await start();
      expect(stderr).toContain('seeded');
      const health = await fetch(`${origin}/healthz`);
      expect(health.status).toBe(200);
      const users = (await (await fetch(`${origin}/users?limit=5`)).json()) as { data: unknown[] };
      expect(users.data).toHaveLength(5);
      // Every post for the admin; the published ones alone for a stranger (the example's read rule).
      const count = async (headers: Record<string, string>): Promise<number> =>
        ((await (await fetch(`${origin}/posts?limit=0&count=true`, { headers })).json()) as { totalCount: number }).totalCount;
      expect(await count({ authorization: `Bearer ${credential('Admin key')}` })).toBe(10_000);
      const published = await count({});
      expect(published).toBeGreaterThan(0);
      expect(published).toBeLessThan(10_000);
      // The demo users have pictures, stored under --files and served resized.
      const user = (await (await fetch(`${origin}/users/42?fields=profilePicture&profilePicture.size=64`)).json()) as { profilePicture: string };
      const picture = await fetch(`${origin}${user.profilePicture}`);
      expect(picture.status).toBe(200);
      expect(picture.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await sharp(Buffer.from(await picture.arrayBuffer())).metadata()).width).toBe(64);
      expect(existsSync(join(files, 'originals'))).toBe(true);
    });

    let firstAdminKey = '';
    let firstToken = '';

    it('prints an admin key and a member token for user 42 that the server accepts, from a secret kept with mode 0600', async () => {
      firstAdminKey = credential('Admin key');
      firstToken = credential('Member');
      const [, payload] = firstToken.split('.');
      expect(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString())).toMatchObject({ sub: '42', role: 'MEMBER' });
      const asAdmin = await http(origin, 'GET', '/users/42?fields=name', { headers: { authorization: `Bearer ${firstAdminKey}` } });
      expect(asAdmin.status).toBe(200);
      // The README's authenticated request: user 42 edits their own bio.
      const patch = await http(origin, 'PATCH', '/users/42', {
        raw: JSON.stringify({ bio: 'Written with the member token' }),
        headers: { authorization: `Bearer ${firstToken}`, 'content-type': 'application/merge-patch+json' },
      });
      expect(patch.status, patch.text).toBe(200);
      expect(patch.json.bio).toBe('Written with the member token');
      const forged = await http(origin, 'GET', '/users/42', { headers: { authorization: `Bearer ${firstToken.slice(0, -4)}AAAA` } });
      expect(forged.status).toBe(401);
      const secretFile = ctx.dialect === 'sqlite' ? `${ctx.url}.secret` : join(files, 'demo.secret');
      expect(statSync(secretFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(secretFile, 'utf8')).toContain(firstAdminKey);
    });

    let demoAccessToken = '';

    it('prints demo accounts whose passwords sign in, and whose token writes (the README\'s curl)', async () => {
      const demo = /^ {2}(\S+@\S+)\s+(demo-password-\d+)$/m.exec(banner);
      if (demo?.[1] === undefined) throw new Error(`no demo account in ${banner}`);
      const signIn = await http(origin, 'POST', '/auth/sign-in', { body: { email: demo[1], password: demo[2] } });
      expect(signIn.status, signIn.text).toBe(200);
      demoAccessToken = signIn.json.accessToken as string;
      const post = await http(origin, 'POST', '/posts', { body: { title: 'From a demo account', body: 'Signed in with its demo password' }, headers: { authorization: `Bearer ${demoAccessToken}` } });
      expect(post.status, post.text).toBe(201);
    });

    it('shuts down cleanly on SIGTERM', async () => {
      await stop();
    });

    it('rotates the signing key with diglot keys rotate-signing', () => {
      const rotated = diglot(['keys', 'rotate-signing', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url]);
      expect(rotated.status, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/^new signing key diglot-/);
    });

    it('starts again with the same admin key, and accepts the member token it printed before', async () => {
      origin = await start();
      expect(stderr).not.toContain('seeded');
      expect(credential('Admin key')).toBe(firstAdminKey);
      const response = await http(origin, 'GET', '/users/42?fields=bio', { headers: { authorization: `Bearer ${firstToken}` } });
      expect(response.status).toBe(200);
      expect(response.json.bio).toBe('Written with the member token');
      // Signed with the key rotate-signing retired: valid until it expires.
      expect((await http(origin, 'GET', '/me', { headers: { authorization: `Bearer ${demoAccessToken}` } })).status).toBe(200);
      await stop();
    });
  });
});

describeEachDialect('diglot keys', (ctx) => {
  it('needs a migrated database', () => {
    const result = diglot(['keys', 'list', '--db', ctx.url]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('diglot migrate');
  });

  it('creates a key (printed once), lists keys without it, and a revoked key is refused by the server', async () => {
    expect(diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url]).status).toBe(0);
    const created = diglot(['keys', 'create', '--role', 'ADMIN', '--name', 'ci', '--db', ctx.url]);
    expect(created.status, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('shown only now');
    const other = diglot(['keys', 'create', '--role', 'MEMBER', '--name', 'reader', '--db', ctx.url]).stdout.trim();

    const taken = diglot(['keys', 'create', '--role', 'ADMIN', '--name', 'ci', '--db', ctx.url]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toContain('already an API key named ci');

    const listed = diglot(['keys', 'list', '--db', ctx.url]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/ci\s+ADMIN\s+\S+\s+active/);
    expect(listed.stdout).toMatch(/reader\s+MEMBER\s+\S+\s+active/);
    expect(listed.stdout).not.toContain(key.slice(3));

    // A server on the same database; keys looked up on every request, so the revocation shows at once.
    const server = await startServer(() => ctx.open(), { seed: false, server: { auth: { apiKeyCacheMs: 0 } } });
    try {
      const asKey = (which: string) => http(server.url, 'GET', '/users?limit=1', { headers: { authorization: `Bearer ${which}` } });
      expect((await asKey(key)).status).toBe(200);
      expect((await asKey(other)).status).toBe(200);

      const revoked = diglot(['keys', 'revoke', 'ci', '--db', ctx.url]);
      expect(revoked.status, revoked.stderr).toBe(0);
      const refused = await asKey(key);
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'The API key has been revoked' });
      expect((await asKey(other)).status).toBe(200);
    } finally {
      await server.close();
    }

    expect(diglot(['keys', 'list', '--db', ctx.url]).stdout).toMatch(/ci\s+ADMIN\s+\S+\s+revoked /);
    expect(diglot(['keys', 'revoke', 'ci', '--db', ctx.url]).stdout).toContain('already revoked');
    const unknown = diglot(['keys', 'revoke', 'nobody', '--db', ctx.url]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no API key has the id or name nobody');
  });

  it('a key revoked from the command line is refused by a running server that trusts looked-up keys for a minute', async () => {
    expect(diglot(['migrate', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url]).status).toBe(0);
    const key = diglot(['keys', 'create', '--role', 'MEMBER', '--name', 'cached', '--db', ctx.url]).stdout.trim();
    const server = await startServer(() => ctx.open(), { seed: false, server: { auth: { apiKeyCacheMs: 60_000 } } });
    try {
      const asKey = () => http(server.url, 'GET', '/users?limit=1', { headers: { authorization: `Bearer ${key}` } });
      expect((await asKey()).status).toBe(200);
      expect(diglot(['keys', 'revoke', 'cached', '--db', ctx.url]).status).toBe(0);
      // The server heard of it (PostgreSQL's channel, SQLite's generation), long before its minute of trust ends.
      await untilCode(asKey, 'UNAUTHENTICATED');
    } finally {
      await server.close();
    }
  });
});

/** The system's own Node, when it is older than Diglot needs (Debian's Node 20 here, as on many a new user's machine). */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((path) => {
  if (!existsSync(path)) return false;
  const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return Number(/^v(\d+)/.exec(version)?.[1]) < 22;
});

describe.runIf(OLD_NODE !== undefined)('on a Node older than 22', () => {
  it('says, in a few lines and no stack, the two things that work (neither of them "run it through npm")', () => {
    const result = spawnSync(OLD_NODE ?? '', [BIN, '--version'], { encoding: 'utf8', cwd: work });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^diglot needs Node\.js 22 or newer, and this is v\d+\.\d+\.\d+\. Either:\n/);
    expect(result.stderr).toContain('install Node.js 22 or 24');
    expect(result.stderr).toContain('`npm install --save-dev node@24`');
    expect(result.stderr).not.toContain('npm start');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describeEachDialect('npm start', (ctx) => {
  it('serves the database DATABASE_URL names, as the README says', async () => {
    await ctx.reset();
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIGLOT_') && !name.startsWith('npm_')));
    // npm from the pinned Node's folder, first on PATH as `npm run` gives it.
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...clean, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}`, DATABASE_URL: ctx.url, PORT: '0', LOG_LEVEL: 'warn', DIGLOT_FILES: join(work, `npm-start-${ctx.dialect}`) },
      detached: true,
    });
    try {
      let err = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          if (err.includes('REST API')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
      });
      expect(err).toContain(ctx.dialect === 'sqlite' ? `on SQLite (${ctx.url})` : 'on PostgreSQL');
      expect(existsSync(join(ROOT, 'diglot.db')) && statSync(join(ROOT, 'diglot.db')).mtimeMs > Date.now() - 60_000).toBe(false);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
  }, 120_000);
});
