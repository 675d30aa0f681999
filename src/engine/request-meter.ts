import { planCost } from '../plan/limits.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { RequestMeter } from '../plan/request-context.js';

export type { RequestMeter } from '../plan/request-context.js';

/** What one write (a create, update, delete, link or unlink) costs, whatever it changes. */
export const WRITE_COST = 10;

/** What `plans` are estimated to cost (at least one point): see planCost. */
export function readCost(plans: readonly ReadPlan[]): number {
  let cost = 0;
  for (const plan of plans) cost += planCost(plan);
  return Math.max(1, Math.ceil(cost));
}

/** Charges what `plans` are estimated to read. */
export function chargeReads(meter: RequestMeter, plans: readonly ReadPlan[]): Promise<void> | undefined {
  if (!meter.limited) return undefined;
  return meter.spend(readCost(plans));
}

/** Runs `work` (statements), adding its time to the meter's database time. */
export async function timed<T>(meter: RequestMeter, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  if (meter.planEnd === 0) meter.planEnd = start;
  try {
    return await work();
  } finally {
    meter.dbMs += performance.now() - start;
  }
}
