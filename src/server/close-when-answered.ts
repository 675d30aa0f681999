import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Server } from 'node:http';

/**
 * From now on, a keep-alive connection is closed as soon as its response
 * finishes. `server.close()` destroys only the connections idle at that
 * moment; one still answering would otherwise sit idle after its answer
 * until the keep-alive timeout, and hold the close that long. Returns the
 * function that stops watching. Nothing runs per request before closing.
 */
export function closeConnectionsWhenAnswered(server: Server): () => void {
  const onFinish = (message: unknown): void => {
    // After Node's own finish handling has detached the response, so the connection counts as idle.
    if ((message as { server?: unknown }).server === server) setImmediate(() => server.closeIdleConnections());
  };
  subscribe('http.server.response.finish', onFinish);
  return () => unsubscribe('http.server.response.finish', onFinish);
}
