/**
 * Node's global fetch (undici) in a child process that is stopped (SIGSTOP)
 * the moment the server starts writing its answer, and continued only once
 * the server has written it and ended its side: a client that is busy, or
 * far away, while its request is refused. If the server closed
 * with the body still arriving, the client's kernel now holds a reset, and
 * fetch fails with EPIPE or ECONNRESET instead of reading the answer.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface FetchOutcome {
  readonly status?: number;
  readonly body?: string;
  /** The client's error (`Error: write EPIPE`, …), when fetch failed. */
  readonly error?: string;
}

const CLIENT = `
const [url, kind, size] = process.argv.slice(1);
const bytes = Buffer.alloc(Number(size), kind === 'file' ? 7 : 32);
let init;
if (kind === 'file') {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/png' }), 'big.png');
  init = { method: 'PUT', body: form };
} else {
  init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes };
}
fetch(url, init).then(
  async (response) => console.log(JSON.stringify({ status: response.status, body: await response.text() })),
  (error) => console.log(JSON.stringify({ error: String(error.cause ?? error) })),
);
`;

/** `kind` 'json' POSTs `size` bytes as application/json; 'file' PUTs a form with a `size`-byte file part. */
export function stoppedFetch(app: FastifyInstance, url: string, kind: 'json' | 'file', size: number): Promise<FetchOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENT, url, kind, String(size)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', () => {
      try {
        resolve(JSON.parse(output) as FetchOutcome);
      } catch {
        reject(new Error(`the client printed ${JSON.stringify(output)}`));
      }
    });
    const resume = (): void => {
      child.kill('SIGCONT');
    };
    const onRequest = (request: IncomingMessage): void => {
      app.server.off('request', onRequest);
      const { socket } = request;
      const write = socket.write.bind(socket);
      // The answer's first write stops the client first, so that it reads nothing of it yet.
      socket.write = ((...args: Parameters<typeof write>) => {
        socket.write = write;
        child.kill('SIGSTOP');
        // A little after the server's side has ended (its answer flushed), or closed; at the latest after 5 s.
        socket.once('finish', () => setTimeout(resume, 50));
        socket.once('close', resume);
        setTimeout(resume, 5_000).unref();
        return write(...args);
      }) as typeof write;
    };
    app.server.prependListener('request', onRequest);
  });
}
