// Starting, watching and stopping the server processes of a run. Every child
// is registered at once, so that `stopAll` (called on success, failure and
// Ctrl-C) ends each one by its pid; each child also preloads
// count-statements.mjs, which ends it when the runner's IPC channel closes.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const HOOK = fileURLToPath(new URL('./count-statements.mjs', import.meta.url));

/** A port free on 127.0.0.1 right now (the kernel's choice). */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

export class ProcessSet {
  #children = new Map();
  #nextId = 0;

  /**
   * Starts `node [nodeArgs] --import count-statements.mjs script [args]` and
   * waits until `GET readyPath` answers (any status). The process runs the
   * same Node as the runner (the project's Node 24). Without `countStatements`
   * (profiles: the wrapper would take the blame for the database's time) the
   * hook is not preloaded.
   */
  async start({ name, script, args = [], nodeArgs = [], env = {}, cwd, port, readyPath = '/', timeoutMs = 90_000, countStatements = true }) {
    const child = spawn(process.execPath, [...nodeArgs, ...(countStatements ? ['--import', HOOK] : []), script, ...args], {
      cwd,
      env: { ...process.env, NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const entry = { name, child, output: '', exited: false };
    this.#children.set(name, entry);
    const keep = (chunk) => {
      entry.output = (entry.output + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', () => {
      entry.exited = true;
    });
    const origin = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (entry.exited) throw new Error(`${name} exited while starting:\n${entry.output}`);
      try {
        await globalThis.fetch(origin + readyPath, { signal: globalThis.AbortSignal.timeout(2000) }).then((response) => response.arrayBuffer());
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`${name} did not answer on ${origin} within ${timeoutMs / 1000}s:\n${entry.output}`);
        await sleep(100);
      }
    }
    return {
      name,
      pid: child.pid,
      origin,
      output: () => entry.output,
      alive: () => !entry.exited,
      statements: () => this.#stats(child),
    };
  }

  /** The statement count the child's preloaded hook keeps; undefined if it does not answer. */
  async #stats(child) {
    if (!child.connected) return undefined;
    const id = ++this.#nextId;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        resolve(undefined);
      }, 2000);
      const onMessage = (message) => {
        if (message?.type === 'bench:stats' && message.id === id) {
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(message.statements);
        }
      };
      child.on('message', onMessage);
      child.send({ type: 'bench:stats', id });
    });
  }

  /** Stops one child: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
  async stop(name, graceMs = 5000) {
    const entry = this.#children.get(name);
    if (entry === undefined) return;
    this.#children.delete(name);
    if (entry.exited) return;
    const exited = once(entry.child, 'exit');
    entry.child.kill('SIGTERM');
    const timer = setTimeout(() => entry.child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  async stopAll() {
    await Promise.all([...this.#children.keys()].map((name) => this.stop(name)));
  }

  /** Synchronous last resort (process 'exit'): SIGKILL whatever is left. */
  killAllNow() {
    for (const entry of this.#children.values()) {
      if (!entry.exited) entry.child.kill('SIGKILL');
    }
  }
}
