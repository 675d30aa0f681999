import type { FastifyRequest } from 'fastify';
import { planCost } from '../plan/limits.js';
import type { ReadPlan } from '../plan/read-plan.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's budget and stage clock, set before any route runs by the
     * server's request context (src/server/request-context.ts); null only
     * where no hook ran. Read it with `meterOf(request)`.
     */
    meter: RequestMeter | null;
  }
}

/**
 * What the engine charges a request and times it with: the one place both
 * front-ends pass through, so a REST GET with `include=` and the same
 * GraphQL query cost the same points.
 */
export interface RequestMeter {
  /** False when no budget applies (the admin, limits off): nothing is worked out to be charged. */
  readonly limited: boolean;
  /**
   * Takes `cost` points from the asker's budget. Rejects with RATE_LIMITED
   * when the budget is spent; undefined when there was nothing to wait for
   * (no limit applies).
   */
  spend(cost: number): Promise<void> | undefined;
  /** `performance.now()` when the first statement of the request started: the end of parsing and planning. */
  planEnd: number;
  /** Milliseconds spent running statements, all of them. */
  dbMs: number;
}

/** What one write (a create, update, delete, link or unlink) costs, whatever it changes. */
export const WRITE_COST = 10;

/** The request's meter, where the server set one. */
export function meterOf(request: FastifyRequest): RequestMeter | undefined {
  return request.meter ?? undefined;
}

/** Charges what `plans` are estimated to read (at least one point): see planCost. */
export function chargeReads(meter: RequestMeter | undefined, plans: readonly ReadPlan[]): Promise<void> | undefined {
  if (meter === undefined || !meter.limited) return undefined;
  let cost = 0;
  for (const plan of plans) cost += planCost(plan);
  return meter.spend(Math.max(1, Math.ceil(cost)));
}

/** Runs `work` (statements), adding its time to the meter's database time. */
export async function timed<T>(meter: RequestMeter | undefined, work: () => Promise<T>): Promise<T> {
  if (meter === undefined) return work();
  const start = performance.now();
  if (meter.planEnd === 0) meter.planEnd = start;
  try {
    return await work();
  } finally {
    meter.dbMs += performance.now() - start;
  }
}
