import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that reads the frontend half of the
 * wire protocol and records every statement any connection through it runs:
 * a simple Query message, or an Execute of the extended protocol (each
 * execution of a prepared statement counts, not only its Parse). Whatever
 * sends it (a request, a background timer, the listening connection), it is
 * seen, so a statement nobody meant to send cannot hide from a test.
 */
export interface PgStatementCounter {
  /** The port it listens on (127.0.0.1): point a postgres:// URL at it. */
  readonly port: number;
  /** Every statement run so far, in order of arrival. */
  readonly statements: readonly string[];
  close(): Promise<void>;
}

/** The protocol's startup-phase requests that carry no type byte and are answered by one byte before the real startup message. */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

export async function startPgStatementCounter(target: { readonly host: string; readonly port: number }): Promise<PgStatementCounter> {
  const statements: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    const reader = frontendReader((text) => statements.push(text));
    client.on('data', (chunk: Buffer) => {
      reader(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('counter has no TCP address');
  return {
    port: address.port,
    statements,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Feeds one connection's client-to-server bytes; calls `onStatement` with the text of each statement run. */
function frontendReader(onStatement: (text: string) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let started = false;
  const prepared = new Map<string, string>();
  const portals = new Map<string, string>();
  const message = (type: number, body: Buffer): void => {
    switch (String.fromCharCode(type)) {
      case 'Q':
        onStatement(cString(body, 0).text);
        break;
      case 'P': {
        const name = cString(body, 0);
        prepared.set(name.text, cString(body, name.next).text);
        break;
      }
      case 'B': {
        const portal = cString(body, 0);
        portals.set(portal.text, cString(body, portal.next).text);
        break;
      }
      case 'E': {
        const statement = portals.get(cString(body, 0).text);
        onStatement(statement === undefined ? '(unknown portal)' : (prepared.get(statement) ?? `(unknown statement ${statement})`));
        break;
      }
      default:
    }
  };
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        // Startup phase: length, then a protocol code, no type byte.
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) started = true;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      message(pending[0] as number, pending.subarray(5, 1 + length));
      pending = pending.subarray(1 + length);
    }
  };
}

function cString(buffer: Buffer, start: number): { readonly text: string; readonly next: number } {
  const end = buffer.indexOf(0, start);
  return { text: buffer.toString('utf8', start, end), next: end + 1 };
}
