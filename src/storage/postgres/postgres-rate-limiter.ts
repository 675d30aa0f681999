import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { SharedRateLimiterOptions } from '../dialect.js';
import { SYSTEM_PREFIX } from '../migrate/desired-schema.js';

/** One table for every policy (keys carry the policy's prefix); a system table, so migrations leave it alone. */
const TABLE = `${SYSTEM_PREFIX}rate_limits`;

/**
 * rate-limiter-flexible's PostgreSQL store on the engine's own pool: every
 * instance on the database counts against the same rows (one upsert a
 * charge). It creates its table on first use and clears expired rows every
 * few minutes; resolved once the table exists.
 */
export function createPostgresRateLimiter(pool: pg.Pool, options: SharedRateLimiterOptions): Promise<RateLimiterPostgres> {
  return new Promise((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      {
        storeClient: pool,
        storeType: 'pool',
        tableName: TABLE,
        keyPrefix: options.keyPrefix,
        points: options.points,
        duration: options.duration,
        insuranceLimiter: options.insuranceLimiter,
      },
      (error?: unknown) => {
        if (error === undefined || error === null) resolve(limiter);
        else reject(error instanceof Error ? error : new Error('the rate-limit table could not be created', { cause: error }));
      },
    );
  });
}
