import type { Principal } from '../plan/principal.js';
import type { Database } from '../storage/dialect.js';
import { SharedCounts, type Verdict } from './shared-counts.js';

/** A budget: `points` to spend in every `window` seconds (a fixed window, per key). */
export interface RateLimitPolicy {
  readonly points: number;
  readonly window: number;
}

/**
 * Who gets which budget. A request costs what its plan is estimated to read
 * (rows, as `maxCost` counts them; at least 1), a write WRITE_COST; the
 * same in REST and GraphQL. `false` means unlimited.
 */
export interface RateLimitOptions {
  /** Per client address, for requests without credentials. */
  readonly anonymous?: RateLimitPolicy | false;
  /** Per principal (a token's subject, an API key), for every role without its own entry. */
  readonly member?: RateLimitPolicy | false;
  /** Per role (a value of the schema's role enum). The admin role is unlimited unless named here. */
  readonly roles?: Readonly<Record<string, RateLimitPolicy | false>>;
  /**
   * Seconds between two exchanges of counts with the other instances on the
   * same PostgreSQL database (one statement each, at most, whatever the
   * request rate). Default 1. A client can overspend by about what it sends
   * in two intervals: see docs/production.md.
   */
  readonly exchangeInterval?: number;
}

export const DEFAULT_RATE_LIMITS: Readonly<{ anonymous: RateLimitPolicy; member: RateLimitPolicy }> = Object.freeze({
  anonymous: Object.freeze({ points: 100_000, window: 60 }),
  member: Object.freeze({ points: 1_000_000, window: 60 }),
});

export const DEFAULT_EXCHANGE_INTERVAL = 1;

/** One policy in force: how it charges a key and the `RateLimit-Policy` field that announces it. */
export interface ActivePolicy {
  readonly name: string;
  readonly points: number;
  /** Takes `cost` points from `key`'s budget when they fit; at once, without a statement. */
  take(key: string, cost: number): Verdict;
  /** draft-ietf-httpapi-ratelimit-headers: `"anonymous";q=100000;w=60`. */
  readonly header: string;
}

/** Picks the budget of a request and the key it is counted under. */
export interface RateLimits {
  policyOf(principal: Principal): ActivePolicy | undefined;
  /** Stops trading counts with other instances. */
  close(): void;
}

/**
 * The budgets, one a policy, counted in memory; where the database offers a
 * place to trade counts (PostgreSQL), instances behind one load balancer
 * share one budget through it, in batches (see SharedCounts). While it does
 * not answer, each instance counts alone.
 */
export async function createRateLimits(
  options: RateLimitOptions | false | undefined,
  db: Database,
  roleNames?: readonly string[],
  onExchangeError?: (error: unknown) => void,
): Promise<RateLimits | undefined> {
  if (options === false) return undefined;
  const unknown = Object.keys(options ?? {}).filter((key) => !OPTION_KEYS.includes(key));
  if (unknown.length > 0) throw new TypeError(`Unknown rateLimits option "${unknown.join('", "')}"; known: ${OPTION_KEYS.join(', ')}`);
  const anonymous = checked('anonymous', options?.anonymous ?? DEFAULT_RATE_LIMITS.anonymous);
  const member = checked('member', options?.member ?? DEFAULT_RATE_LIMITS.member);
  const roles = new Map<string, RateLimitPolicy | false>();
  for (const [role, policy] of Object.entries(options?.roles ?? {})) {
    if (roleNames !== undefined && !roleNames.includes(role)) throw new TypeError(`rateLimits.roles.${role}: the schema's roles are ${roleNames.join(', ')}`);
    roles.set(role, checked(`roles.${role}`, policy));
  }
  const interval = options?.exchangeInterval ?? DEFAULT_EXCHANGE_INTERVAL;
  if (typeof interval !== 'number' || !(interval > 0)) throw new TypeError(`rateLimits.exchangeInterval must be a positive number of seconds, got ${String(interval)}`);
  await db.rateCounts?.prepare();
  const counts = new SharedCounts({ exchange: db.rateCounts, intervalMs: interval * 1000, onError: onExchangeError });
  const activate = (name: string, policy: RateLimitPolicy | false): ActivePolicy | undefined => {
    if (policy === false) return undefined;
    const { points } = policy;
    const windowMs = policy.window * 1000;
    const prefix = `${name}:`;
    return { name, points, take: (key, cost) => counts.take(prefix + key, points, windowMs, cost), header: `"${name}";q=${points};w=${policy.window}` };
  };
  const anonymousPolicy = activate('anonymous', anonymous);
  const memberPolicy = activate('member', member);
  const rolePolicies = new Map<string, ActivePolicy | undefined>();
  for (const [role, policy] of roles) rolePolicies.set(role, activate(role.toLowerCase(), policy));
  return {
    close: () => {
      counts.close();
    },
    policyOf: (principal) => {
      if (principal.via === 'anonymous') return anonymousPolicy;
      if (principal.role !== null && rolePolicies.has(principal.role)) return rolePolicies.get(principal.role);
      return principal.admin ? undefined : memberPolicy;
    },
  };
}

const OPTION_KEYS = ['anonymous', 'member', 'roles', 'exchangeInterval'];

function checked(name: string, policy: RateLimitPolicy | false): RateLimitPolicy | false {
  if (policy === false) return false;
  const { points, window } = policy;
  if (!Number.isInteger(points) || points < 1) throw new TypeError(`rateLimits.${name}.points must be a positive whole number, got ${String(points)}`);
  if (typeof window !== 'number' || !(window > 0)) throw new TypeError(`rateLimits.${name}.window must be a positive number of seconds, got ${String(window)}`);
  return policy;
}
