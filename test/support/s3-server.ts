/**
 * A real S3-compatible server for tests: @20minutes/s3rver in a child
 * process on a free loopback port, over a temporary directory, with one
 * bucket. The SDK speaks real HTTP to it; nothing is mocked. It logs every
 * request it receives, so a test can count the PUTs of one object.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createS3FileStore, type S3FileStoreOptions } from '../../src/files/s3-file-store.js';
import type { FileStore } from '../../src/files/file-store.js';

export interface S3TestServer {
  readonly endpoint: string;
  readonly bucket: string;
  /** Every request so far, in order: method and URL (path-style: `/<bucket>/<object>?<query>`). */
  readonly requests: readonly { readonly method: string; readonly url: string }[];
  /** How many requests of `method` it received for objects named `name` (the query aside), or whose names start with `name` when it ends with `*`. */
  count(method: string, name: string): number;
  /** A store on this server, under `prefix`. */
  store(prefix?: string, options?: Partial<S3FileStoreOptions>): FileStore;
  /** Stops the server (a store on it then answers FILE_STORE_UNAVAILABLE) and removes its directory. */
  stop(): Promise<void>;
}

const SCRIPT = new URL('./s3-server-process.mjs', import.meta.url).pathname;

export async function startS3Server(bucket = 'diglot-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'diglot-s3-'));
  const child: ChildProcess = spawn(process.execPath, [SCRIPT, directory, bucket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const requests: { method: string; url: string }[] = [];
  if (child.stdout === null) throw new Error('the S3 test server has no stdout');
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the S3 test server exited (${code})`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { port?: number; method?: string; url?: string };
      if (message.port !== undefined) resolve(message.port);
      else if (message.method !== undefined && message.url !== undefined) requests.push({ method: message.method, url: message.url });
    });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    endpoint,
    bucket,
    requests,
    count: (method, name) => {
      const path = `/${bucket}/${name.replace(/\*$/, '')}`;
      const matches = name.endsWith('*') ? (object: string) => object.startsWith(path) : (object: string) => object === path;
      return requests.filter((request) => request.method === method && matches(request.url.split('?')[0] ?? '')).length;
    },
    store: (prefix = '', options = {}) =>
      createS3FileStore({
        bucket,
        prefix,
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        ...options,
      }),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null) resolve();
        else child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }).then(() => rmSync(directory, { recursive: true, force: true }));
      return stopped;
    },
  };
}
