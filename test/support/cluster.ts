/**
 * A real cluster for tests and the bench: Diglot instances as the CLI runs
 * them (`dist/cli/main.js serve`, separate processes) and HAProxy from the
 * Debian package in front, with health checks on `/readyz`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const BIN = join(ROOT, 'dist/cli/main.js');
export const EXAMPLE_SCHEMA = join(ROOT, 'examples/social/schema.graphql');

/** Compiles `dist/` unless it is newer than every source file (the instances run the compiled CLI). */
export function buildIfStale(): void {
  const newest = (folder: string): number =>
    Math.max(0, ...readdirSync(folder, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? newest(join(folder, entry.name)) : statSync(join(folder, entry.name)).mtimeMs)));
  const built = existsSync(BIN) ? statSync(BIN).mtimeMs : 0;
  if (built > newest(join(ROOT, 'src'))) return;
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the build failed: ${build.stdout}${build.stderr}`);
}

/** Where HAProxy is, or undefined when it is not installed (`.ci/run` installs it). */
export function haproxyPath(): string | undefined {
  for (const path of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) {
    if (spawnSync(path, ['-v']).status === 0) return path;
  }
  return undefined;
}

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** The running process (replaced by `restart`). */
  child: ChildProcess;
  /** What it wrote to stderr (the banner, warnings). */
  stderr: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Starts `diglot serve` on `port`; resolves once `/readyz` answers 200. */
export async function startInstance(name: string, port: number, args: readonly string[], env: Record<string, string> = {}): Promise<Instance> {
  const instance = { name, port, url: `http://127.0.0.1:${port}` } as Instance;
  launch(instance, args, env);
  await untilReady(instance);
  return instance;
}

/** Starts the instance's process again, on the same port, with the same arguments. */
export async function restartInstance(instance: Instance, args: readonly string[], env: Record<string, string> = {}): Promise<void> {
  launch(instance, args, env);
  await untilReady(instance);
}

function launch(instance: Instance, args: readonly string[], env: Record<string, string>): void {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(instance.port), '--host', '127.0.0.1', ...args], {
    cwd: ROOT,
    env: { ...process.env, DIGLOT_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  instance.child = child;
  instance.stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (instance.stderr += chunk.toString('utf8')));
  instance.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function untilReady(instance: Instance, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (instance.child.exitCode !== null) throw new Error(`${instance.name} exited with ${instance.child.exitCode}: ${instance.stderr}`);
    try {
      if ((await fetch(`${instance.url}/readyz`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${instance.name} not ready within ${timeoutMs} ms: ${instance.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Balancer {
  readonly url: string;
  /** The configuration HAProxy runs with (docs/production.md shows the same). */
  readonly config: string;
  /** Each server's state as HAProxy's health checks see it: `UP`, `DOWN`, `MAINT`, … */
  states(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * The HAProxy configuration for instances on these ports: round robin,
 * health checks on `/readyz` every 250 ms (down after 2 failures, up after
 * 2 successes), failed connections retried on another server, and a
 * request that got no answer retried only when it is safe to repeat.
 */
export function haproxyConfig(port: number, servers: readonly { readonly name: string; readonly port: number }[], statsSocket: string): string {
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${statsSocket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout queue 10s',
    // A check answers in milliseconds; a busy machine may take longer, which is not a reason to take the server out.
    '  timeout check 2s',
    '  timeout http-keep-alive 10s',
    // A refused connection is retried (3 times), on another server: nothing was sent, so any request may be.
    '  retries 3',
    '  option redispatch 1',
    // A request sent but not answered (the server died or closed the connection) is retried too, but only if safe (below).
    '  retry-on conn-failure empty-response response-timeout',
    '',
    'frontend diglot',
    `  bind 127.0.0.1:${port}`,
    '  default_backend diglot',
    '',
    'backend diglot',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /readyz',
    '  http-check expect status 200',
    // POST, PUT, PATCH and DELETE are never sent twice: a write the server received may have been committed.
    '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS',
    '  default-server inter 250ms fall 2 rise 2',
    ...servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check`),
    '',
  ].join('\n');
}

/** Starts HAProxy in the foreground (`-db`, master-worker `-W`) in front of the servers. */
export async function startBalancer(haproxy: string, servers: readonly { readonly name: string; readonly port: number }[]): Promise<Balancer> {
  const folder = mkdtempSync(join(tmpdir(), 'diglot-haproxy-'));
  const port = await freePort();
  const socket = join(folder, 'stats.sock');
  const config = haproxyConfig(port, servers, socket);
  const file = join(folder, 'haproxy.cfg');
  writeFileSync(file, config);
  const check = spawnSync(haproxy, ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy refuses its configuration: ${check.stdout}${check.stderr}`);
  const child = spawn(haproxy, ['-db', '-W', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const states = async (): Promise<Record<string, string>> => {
    const csv = await statsCommand(socket, 'show stat\n');
    const out: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const [backend, server, ...fields] = line.split(',');
      // Field 18 of `show stat` (17 after the two names) is the status.
      if (backend === 'diglot' && server !== undefined && server !== 'BACKEND' && server !== 'FRONTEND') out[server] = fields[15] ?? '';
    }
    return out;
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    try {
      const up = Object.values(await states()).filter((state) => state === 'UP').length;
      if (up === servers.length) break;
    } catch {
      // The socket is not there yet.
    }
    if (Date.now() > deadline) throw new Error(`haproxy did not see every server up: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    config,
    states,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function statsCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let out = '';
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    socket.once('error', reject);
    socket.once('end', () => resolve(out));
    socket.write(command);
  });
}

/** Waits until HAProxy sees `server` in `state`. */
export async function untilState(balancer: Balancer, server: string, state: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await balancer.states())[server] !== state) {
    if (Date.now() > deadline) throw new Error(`haproxy did not see ${server} ${state} within ${timeoutMs} ms: ${JSON.stringify(await balancer.states())}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
