import type { Database } from '../storage/dialect.js';

/**
 * What the bus says happened: a commit of this process (`local`, with the
 * tables its clocks moved), another process's (`remote`, its tables, or
 * `undefined` when anything may have moved: the listening connection came
 * back after a break), or a tick of the safety poll (`poll`, for the
 * listeners whose period has elapsed; `moved` says whether the database's
 * data version moved since the previous tick, `undefined` where it cannot tell).
 */
export type Change =
  | { readonly kind: 'local'; readonly tables: readonly string[] }
  | { readonly kind: 'remote'; readonly tables: readonly string[] | undefined }
  | { readonly kind: 'poll'; readonly moved: boolean };

export interface ChangeBusSubscription {
  /** How often this listener wants a `poll` change (ms): the safety net for a change nobody announced. */
  readonly pollMs: number;
}

interface Subscriber {
  readonly listener: (change: Change) => void;
  readonly pollMs: number;
  /** When this subscriber last got a poll tick. */
  lastPoll: number;
  /** The data version at its last tick: each subscriber is told whether it moved since its own last look. */
  lastVersion: number | undefined;
}

/**
 * The one change feed of a process: each commit is told once, to every
 * consumer (live reads, the event hub and through it change-event
 * subscriptions and webhooks). Local commits come from the engine right
 * after COMMIT (`committed`); other processes' through the database's change channel
 * (PostgreSQL LISTEN); and one timer, shared by all consumers, ticks each at
 * its own period as the safety net (a process that died between COMMIT and
 * NOTIFY, another process on the same SQLite file). The poll reads the
 * database's data version (in memory on PostgreSQL, `PRAGMA data_version`
 * on SQLite) once per tick for all of them: the bus sends no statement of
 * its own on PostgreSQL. It hears nothing while nobody listens.
 */
export class ChangeBus {
  readonly #subscribers = new Set<Subscriber>();
  #stops: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #timerMs = 0;
  #polling = false;

  constructor(private readonly db: Database) {}

  /**
   * A commit of this process, told right after COMMIT with the tables whose
   * clocks it moved (none for an event no record write carries): the engine
   * calls it once per commit.
   */
  committed(tables: readonly string[]): void {
    if (this.#subscribers.size > 0) this.#tell({ kind: 'local', tables });
  }

  /** `listener` hears every change from now on until the returned function is called; its exceptions are its own. */
  subscribe(listener: (change: Change) => void, options: ChangeBusSubscription): () => void {
    const subscriber: Subscriber = { listener, pollMs: options.pollMs, lastPoll: Date.now(), lastVersion: undefined };
    this.#subscribers.add(subscriber);
    void this.#version().then((version) => {
      subscriber.lastVersion = version;
    });
    if (this.#subscribers.size === 1) this.#start();
    this.#retime();
    return () => {
      if (!this.#subscribers.delete(subscriber)) return;
      if (this.#subscribers.size === 0) this.#stop();
      else this.#retime();
    };
  }

  /** Stops hearing and polling (the engine's owner closes the database after). */
  close(): void {
    this.#subscribers.clear();
    this.#stop();
  }

  #tell(change: Change): void {
    for (const subscriber of [...this.#subscribers]) subscriber.listener(change);
  }

  #start(): void {
    if (this.db.watchChanges !== undefined) this.#stops.push(this.db.watchChanges((tables) => this.#tell({ kind: 'remote', tables })));
  }

  #stop(): void {
    for (const stop of this.#stops) stop();
    this.#stops = [];
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#timerMs = 0;
  }

  /** One timer, at the shortest period asked for. */
  #retime(): void {
    const shortest = Math.min(...[...this.#subscribers].map((subscriber) => subscriber.pollMs));
    if (shortest === this.#timerMs) return;
    clearInterval(this.#timer);
    this.#timerMs = shortest;
    this.#timer = setInterval(() => void this.#poll(), shortest);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const now = Date.now();
      // Within a tenth of the timer's period counts as due: timers fire a little early or late.
      const slack = this.#timerMs / 10;
      const due = [...this.#subscribers].filter((subscriber) => now - subscriber.lastPoll + slack >= subscriber.pollMs);
      if (due.length === 0) return;
      const version = await this.#version();
      for (const subscriber of due) {
        if (!this.#subscribers.has(subscriber)) continue;
        const moved = version === undefined || version !== subscriber.lastVersion;
        subscriber.lastPoll = now;
        subscriber.lastVersion = version;
        subscriber.listener({ kind: 'poll', moved });
      }
    } finally {
      this.#polling = false;
    }
  }

  async #version(): Promise<number | undefined> {
    return this.db.dataVersion?.().catch(() => undefined);
  }
}
