import { planCost } from '../plan/limits.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { RequestMeter } from '../plan/request-context.js';

export type { RequestMeter } from '../plan/request-context.js';

/** What one write (a create, update, delete, link or unlink) costs, whatever it changes. */
export const WRITE_COST = 10;

/**
 * Pixels an image's decode costs one point for. Decoding takes about 80 ns
 * a pixel on the 2-core machine it was measured on (a 6300 × 6300 PNG: 3.2
 * s), reading a row in a page 20–50 µs (one point): a thousand pixels is
 * about the same work. So the default 25-megapixel image costs 25,000
 * points, a quarter of an anonymous minute's budget.
 */
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
