import type { ReadPlan } from '../plan/read-plan.js';
import type { RequestMeter } from '../plan/request-context.js';
import { readPlanCost, type TableRows } from '../plan/scan-cost.js';
import type { Model } from '../schema/model.js';

export type { RequestMeter } from '../plan/request-context.js';

/** What one write (a create, update, delete, link or unlink) costs, whatever it changes. */
export const WRITE_COST = 10;

/** Pixels an image's decode costs one point for: decoding a thousand pixels is about the work of reading one row. */
export const PIXELS_PER_POINT = 1000;

/** What decoding an image of `pixels` (width × height × frames) costs: at least one point. */
export function imageCost(pixels: number): number {
  return Math.max(1, Math.ceil(pixels / PIXELS_PER_POINT));
}

/** Charges the decode of an image of `pixels`, before it starts. */
export function chargeImage(meter: RequestMeter, pixels: number): Promise<void> | undefined {
  if (!meter.limited) return undefined;
  return meter.spend(imageCost(pixels));
}

/**
 * What `plans` are estimated to cost (at least one point): the rows they may
 * return and the rows they may scan (plan/scan-cost.ts), with the tables'
 * estimated sizes. One function for every read: REST, GraphQL, live reads'
 * starts and re-runs.
 */
export function readCost(model: Model, plans: readonly ReadPlan[], rows: TableRows): number {
  let cost = 0;
  for (const plan of plans) cost += readPlanCost(model, plan, rows);
  return Math.max(1, Math.ceil(cost));
}

/** Charges what `plans` are estimated to read. */
export function chargeReads(meter: RequestMeter, cost: () => number): Promise<void> | undefined {
  if (!meter.limited) return undefined;
  return meter.spend(cost());
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
