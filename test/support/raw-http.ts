/**
 * HTTP/1.1 over a bare `net` socket, for what fetch cannot send (a malformed
 * request line, huge headers, Expect, TRACE, a body trickled byte by byte)
 * or will not do (write a whole body before reading a single byte of the
 * answer, like a client that is busy or far away).
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  // The body's JSON, unknown shape: tests narrow it with expect().
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: assertions check the shape
  readonly json: any;
}

/**
 * Writes `head` and then every chunk of `body` (waiting for the socket to
 * drain, never reading), and only then reads the answer to the end. A
 * server that closes while the body is still arriving makes this reject
 * with the client's EPIPE or ECONNRESET, as it would for a real client.
 */
export async function sendThenRead(base: string, head: string, body: Iterable<Buffer | string> = []): Promise<RawResponse> {
  const socket = await open(base);
  const received = collect(socket);
  // A failed write rejects first; the read's own rejection then has nobody to tell.
  received.catch(() => undefined);
  socket.pause();
  await write(socket, head);
  for (const chunk of body) await write(socket, chunk);
  socket.resume();
  return parse(await received);
}

/**
 * Writes `head` and `body` (reading as it goes), then sends nothing more
 * and reads the answer until the server closes the connection: a client
 * that stops halfway through its body.
 */
export async function sendUntilClosed(base: string, head: string, body: Iterable<Buffer | string>): Promise<RawResponse> {
  const socket = await open(base);
  const received = collect(socket);
  received.catch(() => undefined);
  await write(socket, head);
  for (const chunk of body) await write(socket, chunk);
  return parse(await received);
}

/**
 * Writes `head`, then one byte of `body` every `everyMs` until it is all
 * sent or the server closes the connection, and reads whatever the server
 * answers: a request trickled slower than the server allows.
 */
export async function trickle(base: string, head: string, body: string, everyMs: number): Promise<RawResponse | undefined> {
  const socket = await open(base);
  const received = collect(socket);
  socket.write(head);
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || socket.writableEnded || sent >= body.length) {
      clearInterval(timer);
      return;
    }
    socket.write(body.charAt(sent));
    sent += 1;
  }, everyMs);
  try {
    const bytes = await received;
    return bytes.length === 0 ? undefined : parse(bytes);
  } finally {
    clearInterval(timer);
  }
}

/** `count` bytes of JSON-ish filler in chunks of 64 KiB. */
export function* filler(count: number, byte = 0x20): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024, byte);
  for (let left = count; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
}

/** The same bytes in HTTP/1.1 chunked transfer coding, with the last chunk. */
export function* chunked(chunks: Iterable<Buffer>): Generator<Buffer | string> {
  for (const chunk of chunks) {
    yield `${chunk.length.toString(16)}\r\n`;
    yield chunk;
    yield '\r\n';
  }
  yield '0\r\n\r\n';
}

function open(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function write(socket: Socket, chunk: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) {
      reject(new Error('the server closed the connection while the request was being sent'));
      return;
    }
    socket.write(chunk, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
}

/** Everything the server sends until it closes; rejects on a socket error (EPIPE, ECONNRESET). */
function collect(socket: Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      resolve(Buffer.concat(chunks));
    });
    socket.once('end', () => socket.end());
  });
}

function parse(bytes: Buffer): RawResponse {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  let json: unknown;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, headers, body, json };
}
