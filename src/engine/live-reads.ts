import { ApiError, isApiError } from '../errors/api-error.js';
import { askerKey } from '../plan/principal.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { RequestContext, RequestMeter } from '../plan/request-context.js';
import type { Model } from '../schema/model.js';
import type { ChangeBus } from './change-bus.js';
import type { ChangeClock } from './change-clock.js';
import type { ReadExecutor, ReadResult } from './read-executor.js';
import { strongEtag } from './validators.js';

export interface LiveReadOptions {
  /** Live reads open at once on this instance (default 10,000); past it a new one is refused with LIVE_READS_LIMIT. */
  readonly maxTotal?: number;
  /** Live reads open at once per client (an account, an API key, or an anonymous caller's address; default 100). */
  readonly maxPerClient?: number;
  /** Live reads open at once from one address, whoever signs them (default 1,000): many accounts are still one machine. */
  readonly maxPerAddress?: number;
  /**
   * The most one run of a live read may cost (points, as a read is charged;
   * default 5,000): a live read runs again on every change of its tables,
   * so a heavy one is refused when it starts.
   */
  readonly maxCost?: number;
  /**
   * How often, in ms, every live read looks at the clocks of its tables even
   * if nobody said they moved (default 1,000): the safety net for a change
   * announced by no one (a process that died between COMMIT and NOTIFY,
   * another process on the same SQLite file). A look is one small statement
   * for all of them, or none where the database can tell nothing changed.
   */
  readonly pollMs?: number;
}

/** A read to watch, as the front-ends ask for it: the same plans and rendering as the GET or query. */
export interface LiveReadRequest {
  readonly plans: readonly ReadPlan[];
  /** Identifies the representation (style and canonical request), as `CachedReadRequest.key`. */
  readonly key: string;
  /** Who is asking, whose slots it takes and whose budget each run is charged to. */
  readonly context: RequestContext;
  /** Turns the plans' results into the representation; may throw (a 404 when the record is gone or hidden). */
  readonly render: (results: readonly ReadResult[]) => string;
  /** The ETag the client already has (`Last-Event-ID`): nothing is sent until the representation differs from it. */
  readonly lastEtag?: string | undefined;
  /**
   * The answer the client was just given for this read, charged as a read
   * (REST's first GET of a stream): the live read starts from it, neither
   * charged again nor read again while its tables are unchanged.
   */
  readonly first?: { readonly version: string; readonly etag: string; readonly body: string } | undefined;
}

/**
 * What a watcher is sent: the representation and its ETag, the error reading
 * it gave (no data), or the error that ended it (its budget is spent: the
 * front-end sends it and closes the stream).
 */
export type LiveValue =
  | { readonly kind: 'value'; readonly etag: string; readonly body: string }
  | { readonly kind: 'error'; readonly etag: string; readonly error: unknown }
  | { readonly kind: 'end'; readonly error: unknown };

export interface LiveRead {
  /** Stops watching; idempotent. */
  close(): void;
}

/** What a read gave: a value or an error, each with its ETag. */
type LiveState = Exclude<LiveValue, { readonly kind: 'end' }>;

interface Watcher {
  lastEtag: string | undefined;
  readonly send: (value: LiveValue) => void;
  /** Charged each run of the plans: re-runs count against their owner. */
  readonly meter: RequestMeter;
  /** Until the first run it sees: its start was charged already. */
  prepaid: boolean;
  readonly close: () => void;
}

/** One shared live read: every watcher of the same representation for the same asker. */
interface Entry {
  readonly key: string;
  readonly plans: readonly ReadPlan[];
  readonly tables: readonly string[];
  readonly render: (results: readonly ReadResult[]) => string;
  /** What one run of the plans costs each watcher. */
  readonly cost: number;
  readonly watchers: Set<Watcher>;
  /** The clock version the current value was read at. */
  version: string | undefined;
  value: LiveState | undefined;
  running: boolean;
  /** A change arrived while it ran: run again after. */
  again: boolean;
}

/**
 * Live reads: the same read plans a GET or query runs, re-run when a change
 * clock of a table they read has moved, and sent only when the ETag of what
 * they render changed. Watchers of the same representation for the same
 * asker (rules applied: the key holds the asker) share one entry and one
 * re-run.
 *
 * A clock move marks the entries reading that table dirty; dirty entries
 * re-run once per event-loop turn (`setImmediate`), so a burst of writes
 * costs one re-run per entry per turn, not one per write. A re-run first
 * reads the clocks (the change clock shares one fresh read among all the
 * re-runs of the turn) and skips the plans when the version it last read
 * at has not moved.
 */
export class LiveReads {
  readonly #entries = new Map<string, Entry>();
  readonly #byTable = new Map<string, Set<Entry>>();
  readonly #perClient = new Map<string, number>();
  readonly #perAddress = new Map<string, number>();
  readonly #dirty = new Set<Entry>();
  #scheduled = false;
  /** Live uses open (watchers and holds): what the limits count. */
  #count = 0;
  /** Watchers only: while there are any, commits are listened for. */
  #watching = 0;
  #unsubscribe: (() => void) | undefined;
  readonly #maxTotal: number;
  readonly #maxPerClient: number;
  readonly #maxPerAddress: number;
  readonly #maxCost: number;
  readonly #pollMs: number;

  constructor(
    private readonly model: Model,
    private readonly bus: ChangeBus,
    private readonly clock: ChangeClock,
    private readonly reader: ReadExecutor,
    /** What one run of plans costs (the engine's readCost): charged at the start and on every re-run. */
    private readonly costOf: (plans: readonly ReadPlan[]) => number,
    options: LiveReadOptions = {},
  ) {
    this.#maxTotal = options.maxTotal ?? 10_000;
    this.#maxPerClient = options.maxPerClient ?? 100;
    this.#maxPerAddress = options.maxPerAddress ?? 1_000;
    this.#maxCost = options.maxCost ?? 5_000;
    this.#pollMs = options.pollMs ?? 1_000;
  }

  /** Called with each commit's tables (this process's and, on PostgreSQL, other instances'), or undefined: any may have moved. */
  tablesMoved(tables: readonly string[] | undefined): void {
    if (tables === undefined) {
      for (const entry of this.#entries.values()) this.#dirty.add(entry);
    } else {
      for (const table of tables) for (const entry of this.#byTable.get(table) ?? []) this.#dirty.add(entry);
    }
    if (this.#dirty.size > 0) this.#schedule();
  }

  /** Live reads and change-event subscriptions open now (tests, observability). */
  get size(): number {
    return this.#count;
  }

  /**
   * Starts watching: `send` gets the current value soon (unless it is
   * `lastEtag`) and every different one after it. Charged as a read when it
   * starts (unless it starts from `first`), and again for each later run of
   * its plans. Rejects with LIVE_READS_LIMIT when the instance, the client
   * or its address has too many open, QUERY_TOO_COMPLEX when one run costs
   * more than `maxCost`, RATE_LIMITED when the budget is spent.
   */
  async watch(request: LiveReadRequest, send: (value: LiveValue) => void): Promise<LiveRead> {
    const { context } = request;
    const cost = this.costOf(request.plans);
    if (cost > this.#maxCost) {
      throw new ApiError('QUERY_TOO_COMPLEX', {
        detail: `A live read runs again on every change of what it reads, so one run may cost at most ${this.#maxCost} points; this one costs ${cost}. Ask for smaller pages or less nesting.`,
        extensions: { limit: 'live.maxCost', maximum: this.#maxCost },
      });
    }
    if (request.first === undefined && context.meter.limited) await context.meter.spend(cost);
    const release = this.#admit(context);
    const key = `${request.key} ${askerKey(this.model, context.principal)}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      const tables = [...new Set(request.plans.flatMap((plan) => this.reader.compile(plan).tables))];
      const { first } = request;
      entry = {
        key,
        plans: request.plans,
        tables,
        render: request.render,
        cost,
        watchers: new Set(),
        version: first?.version,
        value: first === undefined ? undefined : { kind: 'value', etag: first.etag, body: first.body },
        running: false,
        again: false,
      };
      this.#entries.set(key, entry);
      for (const table of tables) {
        let set = this.#byTable.get(table);
        if (set === undefined) this.#byTable.set(table, (set = new Set()));
        set.add(entry);
      }
    }
    let closed = false;
    const shared = entry;
    const close = (): void => {
      if (closed) return;
      closed = true;
      shared.watchers.delete(watcher);
      release();
      this.#watching--;
      if (shared.watchers.size === 0) this.#drop(shared);
      if (this.#watching === 0) this.#stop();
    };
    const watcher: Watcher = { lastEtag: request.lastEtag, send, meter: context.meter, prepaid: true, close };
    entry.watchers.add(watcher);
    this.#watching++;
    if (this.#watching === 1) this.#start();
    // A newcomer needs a value checked against the clocks as they are now, even when the entry has one.
    this.#dirty.add(entry);
    this.#schedule();
    return { close };
  }

  /**
   * Counts a live use that is not a watched read (a change-event
   * subscription, which reads on events) against the same limits; `close`
   * gives it back. Throws LIVE_READS_LIMIT past them.
   */
  hold(context: RequestContext): LiveRead {
    const release = this.#admit(context);
    let closed = false;
    return {
      close: () => {
        if (closed) return;
        closed = true;
        release();
      },
    };
  }

  /** One more live use for the context's client and address, or LIVE_READS_LIMIT; returns its release. */
  #admit(context: RequestContext): () => void {
    if (this.#count >= this.#maxTotal) throw new ApiError('LIVE_READS_LIMIT', { detail: `This server watches at most ${this.#maxTotal} reads at once; try again later` });
    const { key, address } = context.client;
    if ((this.#perClient.get(key) ?? 0) >= this.#maxPerClient) throw new ApiError('LIVE_READS_LIMIT', { detail: `At most ${this.#maxPerClient} live reads per client; close one first` });
    if ((this.#perAddress.get(address) ?? 0) >= this.#maxPerAddress) {
      throw new ApiError('LIVE_READS_LIMIT', { detail: `At most ${this.#maxPerAddress} live reads from one address; close one first` });
    }
    this.#count++;
    countUp(this.#perClient, key);
    countUp(this.#perAddress, address);
    return () => {
      this.#count--;
      countDown(this.#perClient, key);
      countDown(this.#perAddress, address);
    };
  }

  /** Stops listening and polling (the engine's owner closes the database after). */
  close(): void {
    this.#stop();
  }

  #drop(entry: Entry): void {
    this.#entries.delete(entry.key);
    this.#dirty.delete(entry);
    for (const table of entry.tables) {
      const set = this.#byTable.get(table);
      set?.delete(entry);
      if (set?.size === 0) this.#byTable.delete(table);
    }
  }

  /** The first live read: hear the change bus (commits here and elsewhere, and its poll at this period). */
  #start(): void {
    this.#unsubscribe = this.bus.subscribe((change) => this.tablesMoved(change.kind === 'poll' ? undefined : change.tables), { pollMs: this.#pollMs });
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const batch = [...this.#dirty];
      this.#dirty.clear();
      for (const entry of batch) void this.#run(entry);
    });
  }

  async #run(entry: Entry): Promise<void> {
    if (entry.running) {
      entry.again = true;
      return;
    }
    entry.running = true;
    let ran = false;
    try {
      // The clocks before the data, so the data is never older than the version it is remembered at.
      const state = await this.clock.stateOf(entry.tables, 0);
      if (entry.value === undefined || state.version !== entry.version) {
        entry.value = await this.#read(entry);
        entry.version = state.version;
        ran = true;
      }
    } catch (error) {
      // The clocks could not be read (an outage): tell the watchers, and look again at the next poll.
      entry.value = errorValue(error);
      entry.version = undefined;
    } finally {
      entry.running = false;
    }
    const value = entry.value;
    for (const watcher of entry.watchers) {
      // Each run of the plans is charged to every watcher it ran for, except a newcomer's first (paid when it started).
      const prepaid = watcher.prepaid;
      watcher.prepaid = false;
      const charged = ran && !prepaid ? watcher.meter.spend(entry.cost) : undefined;
      if (charged === undefined) deliver(watcher, value);
      else charged.then(() => deliver(watcher, value), (error: unknown) => endWatcher(watcher, error));
    }
    if (entry.again) {
      entry.again = false;
      if (this.#entries.get(entry.key) === entry) {
        this.#dirty.add(entry);
        this.#schedule();
      }
    }
  }

  async #read(entry: Entry): Promise<LiveState> {
    try {
      const results: ReadResult[] = [];
      for (const plan of entry.plans) results.push(await this.reader.read(plan));
      const body = entry.render(results);
      return { kind: 'value', etag: strongEtag(body), body };
    } catch (error) {
      return errorValue(error);
    }
  }
}

function deliver(watcher: Watcher, value: LiveState): void {
  if (watcher.lastEtag === value.etag) return;
  watcher.lastEtag = value.etag;
  watcher.send(value);
}

/** A watcher whose run could not be charged (its budget is spent) is told why and closed. */
function endWatcher(watcher: Watcher, error: unknown): void {
  watcher.send({ kind: 'end', error });
  watcher.close();
}

function countUp(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function countDown(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left === 0) counts.delete(key);
  else counts.set(key, left);
}

/** An error's "ETag": the same error twice in a row is sent once. */
function errorValue(error: unknown): LiveState {
  return { kind: 'error', etag: `"error:${isApiError(error) ? error.code : 'INTERNAL'}"`, error };
}
