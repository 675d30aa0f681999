import type { Database } from '../storage/dialect.js';

/** Why an instance should get no new requests, or undefined when it should. */
export type NotReady = 'draining' | 'database';

/**
 * Whether a load balancer should send this instance requests (`/readyz`):
 * it is not shutting down and its database answers. The server is made
 * after migrating, so a listening server has its schema in place. The
 * database is asked only when `/readyz` is, at most once per `recheckMs`
 * (concurrent checks share the ping), never on another route's request.
 */
export interface Readiness {
  check(): Promise<NotReady | undefined>;
  /** From now on `/readyz` fails and answers ask clients to close their connections (`Connection: close`). */
  drain(): void;
  readonly draining: boolean;
  /** When `/readyz` was last asked (ms since the epoch): a load balancer is watching this instance. */
  readonly lastAsked: number | undefined;
}

export function createReadiness(db: Database, recheckMs = 500): Readiness {
  let draining = false;
  let lastAsked: number | undefined;
  let checked: { readonly at: number; readonly answers: Promise<boolean> } | undefined;
  const databaseAnswers = (): Promise<boolean> => {
    const now = Date.now();
    if (checked === undefined || now - checked.at >= recheckMs) {
      checked = {
        at: now,
        answers: db.ping().then(
          () => true,
          () => false,
        ),
      };
    }
    return checked.answers;
  };
  return {
    async check() {
      lastAsked = Date.now();
      if (draining) return 'draining';
      return (await databaseAnswers()) ? undefined : 'database';
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    get lastAsked() {
      return lastAsked;
    },
  };
}
