import { AsyncResource } from 'node:async_hooks';
import { schemaDeprecations, type DeprecatedUse } from '../plan/deprecated-use.js';
import type { RequestContext } from '../plan/request-context.js';
import type { Database } from '../storage/dialect.js';
import type { Model } from '../schema/model.js';
import { addDeprecationUses, recordDeprecationDates, type DeprecationUseCount } from '../storage/deprecation-uses.js';

export interface DeprecationUsageOptions {
  /** Milliseconds between two flushes, at most (one statement each, whatever the request rate; default 5,000). */
  readonly flushMs?: number;
  /** Told when a flush fails (its counts are kept for the next one). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Distinct (thing, client) pairs held between two flushes: past it, new
 * clients' uses are counted as `unknown`, so clients inventing names cannot
 * grow memory or the table without bound.
 */
export const MAX_PENDING_COUNTS = 1000;

interface Pending {
  readonly coordinate: string;
  readonly client: string;
  readonly caller: string;
  uses: number;
  firstSeen: number;
  lastSeen: number;
}

/**
 * Uses of deprecated things, counted in memory and added to the database in
 * batches: no statement on a request's path; at most one every `flushMs`
 * while uses arrive, and one at close. Several instances add their counts
 * to the same rows.
 */
export class DeprecationUsage {
  readonly #pending = new Map<string, Pending>();
  /** What each request has been counted for already. */
  readonly #counted = new WeakMap<RequestContext, Set<string>>();
  readonly #db: Database;
  readonly #flushMs: number;
  readonly #onError: (error: unknown) => void;
  // Timers start in the context this object was made in, not in the request that happened to use something first.
  readonly #schedule: (delay: number) => NodeJS.Timeout;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #recorded: ReadonlyMap<string, number> = new Map();

  constructor(db: Database, options: DeprecationUsageOptions = {}) {
    this.#db = db;
    this.#flushMs = options.flushMs ?? 5000;
    this.#onError = options.onError ?? (() => undefined);
    this.#schedule = AsyncResource.bind((delay: number) => setTimeout(() => void this.flush(), delay).unref());
  }

  /**
   * Records when the model's deprecated things without a `since` were first
   * served as deprecated (two statements, at start, only when there are
   * such things), for `deprecatedAt`.
   */
  async prepare(model: Model): Promise<void> {
    const undated = schemaDeprecations(model).filter((use) => use.since === undefined);
    if (undated.length === 0) return;
    this.#recorded = await recordDeprecationDates(this.#db, undated.map((use) => use.coordinate), Date.now());
  }

  /**
   * When the thing was deprecated, in seconds since the epoch (RFC 9745's
   * date): its `since`, else when this database first served it as
   * deprecated, else undefined (the server was not prepared).
   */
  deprecatedAt(use: DeprecatedUse): number | undefined {
    if (use.since !== undefined) return Date.parse(`${use.since}T00:00:00Z`) / 1000;
    const recorded = this.#recorded.get(use.coordinate);
    return recorded === undefined ? undefined : Math.floor(recorded / 1000);
  }

  /**
   * Counts one use of each thing by the context's client, once per request
   * however many of its plans (a write and its read-back, a query's root
   * fields) used it; nothing at all for a plan that used none.
   */
  record(uses: readonly DeprecatedUse[], context: RequestContext): void {
    if (uses.length === 0) return;
    let counted = this.#counted.get(context);
    if (counted === undefined) {
      counted = new Set();
      this.#counted.set(context, counted);
    }
    const now = Date.now();
    const { client } = context;
    const caller = callerOf(client.key);
    for (const use of uses) {
      if (counted.has(use.coordinate)) continue;
      counted.add(use.coordinate);
      let name = client.name;
      let key = `${use.coordinate}\n${name}\n${caller}`;
      let entry = this.#pending.get(key);
      if (entry === undefined && this.#pending.size >= MAX_PENDING_COUNTS) {
        name = 'unknown';
        key = `${use.coordinate}\n${name}\n${caller}`;
        entry = this.#pending.get(key);
      }
      if (entry === undefined) {
        entry = { coordinate: use.coordinate, client: name, caller, uses: 0, firstSeen: now, lastSeen: now };
        this.#pending.set(key, entry);
      }
      entry.uses += 1;
      entry.lastSeen = now;
    }
    this.#timer ??= this.#schedule(this.#flushMs);
  }

  /** Adds what was counted since the last flush to the database now (one statement); resolves when it is in. */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushNow().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  /** Stops the timer and flushes what is left. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#flushing;
    await this.flush();
  }

  async #flushNow(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    const batch: DeprecationUseCount[] = [...this.#pending.values()].map((entry) => ({ ...entry }));
    this.#pending.clear();
    try {
      await addDeprecationUses(this.#db, batch);
    } catch (error) {
      // Kept for the next flush: a count is lost only if the process ends while the database is away.
      for (const count of batch) this.#merge(count);
      this.#timer ??= this.#schedule(this.#flushMs);
      this.#onError(error);
    }
  }

  #merge(count: DeprecationUseCount): void {
    const key = `${count.coordinate}\n${count.client}\n${count.caller}`;
    const entry = this.#pending.get(key);
    if (entry === undefined) {
      this.#pending.set(key, { ...count });
      return;
    }
    entry.uses += count.uses;
    entry.firstSeen = Math.min(entry.firstSeen, count.firstSeen);
    entry.lastSeen = Math.max(entry.lastSeen, count.lastSeen);
  }
}

/** The kind of caller of a client key (`ip:…` → `ip`, `admin` → `admin`): never an address or id, which the table has no need of. */
function callerOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
}
