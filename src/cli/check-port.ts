import { createServer } from 'node:net';

/**
 * Binds `host:port` and lets it go again, so `serve` learns that the port is
 * taken (or forbidden) before it creates or migrates a database. The port
 * could be taken in the moment between this check and the real listen; the
 * listen then fails with the same message.
 */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new Error(describePortError(error, port))));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** One sentence naming the port, for the errors binding it can give. */
export function describePortError(error: NodeJS.ErrnoException, port: number): string {
  if (error.code === 'EADDRINUSE') return `port ${port} is in use (EADDRINUSE); choose another with --port`;
  if (error.code === 'EACCES') return `port ${port} needs privileges this user lacks (EACCES); choose one above 1023 with --port`;
  if (error.code === 'EADDRNOTAVAIL') return `cannot listen on port ${port}: the --host address is not one of this machine's (EADDRNOTAVAIL)`;
  return `cannot listen on port ${port}: ${error.message}`;
}
