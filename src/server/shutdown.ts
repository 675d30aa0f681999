import type { FastifyInstance } from 'fastify';
import type { Readiness } from './readiness.js';

export interface ShutdownOptions {
  /**
   * How long to keep serving after `/readyz` turns 503, so the load balancer
   * sees it and sends new requests elsewhere (ms). Waited only when
   * `/readyz` was asked within the last minute: nothing watches otherwise.
   */
  readonly drainDelayMs: number;
  /** How long in-flight requests have to finish once the server stops accepting (ms); connections still open then are cut. */
  readonly graceMs: number;
}

export interface ShutdownReport {
  /** Whether the drain delay was waited (a load balancer had asked `/readyz`). */
  readonly drained: boolean;
  /** Whether the grace ran out and open connections were cut. */
  readonly cut: boolean;
}

/** A load balancer that has not asked `/readyz` for this long is taken not to be watching. */
const WATCHED_WITHIN_MS = 60_000;

/**
 * A graceful stop: `/readyz` fails first and answers carry `Connection:
 * close` (so the load balancer's kept-alive connections end with a request
 * rather than race a close), then after the drain delay the server stops
 * accepting, live readers get their goodbye (an SSE `goodbye` event,
 * graphql-ws close code 1012), in-flight requests are answered, and what
 * is still open after the grace is cut.
 */
export async function shutdownServer(app: FastifyInstance, readiness: Readiness, options: ShutdownOptions): Promise<ShutdownReport> {
  readiness.drain();
  const watched = readiness.lastAsked !== undefined && Date.now() - readiness.lastAsked < WATCHED_WITHIN_MS;
  if (watched && options.drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.drainDelayMs));
  let cut = false;
  const deadline = setTimeout(() => {
    cut = true;
    app.server.closeAllConnections();
  }, options.graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(deadline);
  }
  return { drained: watched && options.drainDelayMs > 0, cut };
}
