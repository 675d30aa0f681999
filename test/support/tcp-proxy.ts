import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database server, for outages on demand: `cut()`
 * destroys every connection through it and stops listening (new ones are
 * refused, as when the server is down), `resume()` listens again on the
 * same port. Nothing about the database is touched.
 */
export interface TcpProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  cut(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { readonly host: string; readonly port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A destroyed peer is the point of the exercise, not a failure of the test.
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await listen(server, 0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no TCP address');
  const { port } = address;
  let listening = true;
  const cut = async (): Promise<void> => {
    if (listening) {
      listening = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    }
  };
  return {
    port,
    cut,
    resume: async () => {
      if (listening) return;
      await listen(server, port);
      listening = true;
    },
    close: cut,
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
