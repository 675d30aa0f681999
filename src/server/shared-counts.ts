import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { RateCount, RateCountExchange } from '../storage/dialect.js';

/** What a charge left: whether it was taken, the points left and when the window ends. */
export interface Verdict {
  readonly taken: boolean;
  readonly remainingPoints: number;
  readonly msBeforeNext: number;
}

export interface SharedCountsOptions {
  /** Where instances trade counts; without it this process counts alone. */
  readonly exchange?: RateCountExchange | undefined;
  /** Milliseconds between two exchanges, at most (one statement each, whatever the request rate). */
  readonly intervalMs: number;
  /** Told when an exchange fails after one succeeded, or the first fails (the counts stay local until one succeeds). */
  readonly onError?: (error: unknown) => void;
  /** The clock (ms since the epoch), for tests. */
  readonly now?: () => number;
}

/** One key's window: this instance's points, and the others' as last heard. */
interface Entry {
  readonly key: string;
  readonly windowEnd: number;
  mine: number;
  others: number;
}

/** Local entries of ended windows are dropped this often. */
const SWEEP_EVERY_MS = 10_000;
/** Rows of windows that ended longer ago than this are pruned from the shared table (by whichever instance gets there). */
const PRUNE_EVERY_MS = 60_000;

/**
 * Fixed-window counters, counted in memory and traded in batches: each
 * instance charges its own entries at once (no statement, no promise), and
 * at most once an interval, when something was charged, sends its totals of
 * the keys charged since the last exchange and hears the others' totals for
 * them (one statement). Windows are aligned to the epoch so every instance
 * agrees on them. What a client can overspend is in docs/production.md.
 */
export class SharedCounts {
  readonly #entries = new Map<string, Entry>();
  readonly #charged = new Set<Entry>();
  readonly #exchange: RateCountExchange | undefined;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #instance = randomUUID();
  // Timers start in the context this object was made in, not in the request that happened to charge first.
  readonly #schedule: (delay: number) => NodeJS.Timeout;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #closed = false;
  #failing = false;
  #lastExchange = 0;
  #lastPrune = 0;
  #nextSweep: number;

  constructor(options: SharedCountsOptions) {
    this.#exchange = options.exchange;
    this.#intervalMs = options.intervalMs;
    this.#onError = options.onError ?? (() => undefined);
    this.#now = options.now ?? Date.now;
    this.#nextSweep = this.#now() + SWEEP_EVERY_MS;
    this.#schedule = AsyncResource.bind((delay: number) => setTimeout(() => void this.#trade(), delay).unref());
  }

  /** Takes `cost` points from `key`'s window; `taken` when they fit in `points` (a refusal counts all the same). */
  take(key: string, points: number, windowMs: number, cost: number): Verdict {
    const now = this.#now();
    if (now >= this.#nextSweep) this.#sweep(now);
    const windowEnd = (Math.floor(now / windowMs) + 1) * windowMs;
    let entry = this.#entries.get(key);
    if (entry === undefined || entry.windowEnd !== windowEnd) {
      entry = { key, windowEnd, mine: 0, others: 0 };
      this.#entries.set(key, entry);
    }
    // A refused request counts too: a client that keeps hammering stays refused until the window ends.
    const used = entry.mine + entry.others + cost;
    entry.mine += cost;
    if (this.#exchange !== undefined) {
      this.#charged.add(entry);
      if (this.#timer === undefined && !this.#running) this.#arm(now);
    }
    return { taken: used <= points, remainingPoints: Math.max(0, points - used), msBeforeNext: windowEnd - now };
  }

  /** Stops exchanging (the server is closing). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #trade(): Promise<void> {
    this.#timer = undefined;
    const exchange = this.#exchange;
    if (exchange === undefined || this.#closed) return;
    this.#running = true;
    const now = this.#now();
    this.#lastExchange = now;
    const batch = [...this.#charged];
    this.#charged.clear();
    const prune = now - this.#lastPrune >= PRUNE_EVERY_MS;
    if (prune) this.#lastPrune = now;
    try {
      const mine = batch.map((entry): RateCount => ({ key: entry.key, windowEnd: entry.windowEnd, points: entry.mine }));
      const theirs = await exchange.exchange(this.#instance, mine, prune ? now - PRUNE_EVERY_MS : undefined);
      for (const count of theirs) {
        const entry = this.#entries.get(count.key);
        if (entry !== undefined && entry.windowEnd === count.windowEnd) entry.others = Math.max(entry.others, count.points);
      }
      this.#failing = false;
    } catch (error) {
      // Totals only grow, so the next exchange sends these keys' totals as they are by then.
      for (const entry of batch) this.#charged.add(entry);
      if (!this.#failing) this.#onError(error);
      this.#failing = true;
    } finally {
      this.#running = false;
      if (this.#charged.size > 0) this.#arm(this.#now());
    }
  }

  /** The next exchange, an interval after the last one. */
  #arm(now: number): void {
    if (!this.#closed) this.#timer = this.#schedule(Math.max(0, this.#lastExchange + this.#intervalMs - now));
  }

  #sweep(now: number): void {
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, entry] of this.#entries) if (entry.windowEnd <= now) this.#entries.delete(key);
  }
}
