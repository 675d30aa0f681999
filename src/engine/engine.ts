import { ApiError } from '../errors/api-error.js';
import type { FileService } from '../files/file-service.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { WritePlan, WriteResult } from '../plan/write-plan.js';
import type { Model } from '../schema/model.js';
import { compileAnyRow } from '../storage/compile/compile-write.js';
import type { Database } from '../storage/dialect.js';
import { recordAccountEvent, type AccountEvent } from '../storage/account-events.js';
import { cachePolicyOf, personalPolicy, type CachePolicy } from './cache-policy.js';
import { askerKey } from '../plan/principal.js';
import type { RequestContext } from '../plan/request-context.js';
import { ChangeClock } from './change-clock.js';
import { DeprecationUsage, type DeprecationUsageOptions } from './deprecation-usage.js';
import { rulesHideChanges } from './hidden-changes.js';
import { mayReadFile } from './file-readers.js';
import { ReadExecutor, type ReadResult } from './read-executor.js';
import { ifMatchMatches, ifNoneMatchMatches, lastModifiedHeader, strongEtag, unmodifiedSince, ValidatorCache } from './validators.js';
import { WriteExecutor } from './write-executor.js';
import { ChangeBus } from './change-bus.js';
import { LiveReads, type LiveRead, type LiveReadOptions, type LiveReadRequest, type LiveValue } from './live-reads.js';
import { seedDatabase, type SeedOptions } from './seed/seed.js';
import { bindFiles, type ReceiveUpload } from './engine-files.js';
import { chargeReads, readCost, timed, WRITE_COST } from './request-meter.js';
import { TableSizes } from './table-sizes.js';

export type { ReadResult } from './read-executor.js';
export type { CachePolicy } from './cache-policy.js';
export { EXAMPLE_COUNTS, type SeedOptions, type SeedProgress } from './seed/seed.js';
export type { ReceiveUpload } from './engine-files.js';
export type { LiveRead, LiveReadOptions, LiveReadRequest, LiveValue } from './live-reads.js';
export type { RequestMeter } from './request-meter.js';
export type { RequestContext } from '../plan/request-context.js';

export interface EngineOptions {
  /** Where uploaded files go. Without it, file fields can be read (and set to null) but not uploaded. */
  readonly files?: FileService;
  /** The most JSON one read may answer, in characters (default 16 MiB): the last guard behind the plan limits. */
  readonly maxResponseLength?: number;
  /** Limits and the safety-net poll of live reads (SSE, GraphQL subscriptions). */
  readonly live?: LiveReadOptions;
  /** How often, at most, the tables' estimated sizes are asked for again after writes (ms; default 60,000). */
  readonly tableSizesRefreshMs?: number;
  /** Records one delete may remove or change through `@relation(onDelete:)`, beyond itself (default 1000); past it, 409 RELATION_CASCADE_TOO_LARGE. */
  readonly maxCascade?: number;
  /** How uses of deprecated things are counted and flushed to the database. */
  readonly deprecations?: DeprecationUsageOptions;
}

/** A cacheable read as the front-ends ask for it. */
export interface CachedReadRequest {
  readonly plans: readonly ReadPlan[];
  /** Identifies the representation: style and canonical request (the engine adds the principal where rules make it matter). */
  readonly key: string;
  /** Who is asking (under rules, answers are theirs alone: private, keyed by them), and the budget charged what the plans may read, before anything runs. */
  readonly context: RequestContext;
  readonly ifNoneMatch: string | undefined;
  /** Used only without If-None-Match (RFC 9110 §13.1.3). */
  readonly ifModifiedSince?: string | undefined;
  /** Turns the plans' results into the response body; the ETag is its hash. */
  readonly render: (results: readonly ReadResult[]) => string;
}

export type CachedReadResponse =
  | { readonly status: 304; readonly etag: string | undefined; readonly lastModified: string | undefined; readonly policy: CachePolicy }
  | {
      readonly status: 200;
      /** The change clocks' version the answer was read at (a live read can start from it). */
      readonly version: string;
      readonly etag: string;
      readonly lastModified: string | undefined;
      readonly policy: CachePolicy;
      readonly body: string;
      readonly results: readonly ReadResult[];
    };

/**
 * A conditional write: `If-Match` (the ETag of the representation the client
 * last saw, as the canonical read renders it) or, without one,
 * `If-Unmodified-Since` (compared with when the record's tables last changed).
 */
export type WritePrecondition = {
  readonly plan: ReadPlan;
  readonly render: (result: ReadResult) => string | undefined;
} & (
  | { readonly ifMatch: string }
  /** `modifiedAt` reads the record's own modification time (its @updatedAt) where it has one. */
  | { readonly ifUnmodifiedSince: string; readonly modifiedAt?: (current: string) => string | undefined }
);

/**
 * A check every write passes through, whichever style and transport carried
 * it (the accounts' sign-up limits on every create of the account type).
 */
export interface WriteGuard {
  /** Before the write is charged or run: rejects to refuse it. */
  before(context: RequestContext, plan: WritePlan): Promise<void> | undefined;
  /** After the write failed with `error` (which is thrown on, unless this rejects with another). */
  failed(context: RequestContext, plan: WritePlan, error: unknown): Promise<void> | undefined;
  /** After the write committed. */
  committed(context: RequestContext, plan: WritePlan, result: WriteResult): Promise<void> | undefined;
}

/**
 * The one engine both front-ends talk to. It takes plans, never SQL, so REST
 * and GraphQL asking the same question get the same statement, the same
 * answer and the same caching behaviour.
 */
export interface Engine {
  readonly model: Model;
  readonly db: Database;
  /** One plan, uncharged: a read the request's own work implies (a record read back after its write), timed in the request's clock. */
  read(plan: ReadPlan, context: RequestContext): Promise<ReadResult>;
  /**
   * Several plans for one request (a GraphQL query's root fields): charged
   * together to the context's budget first, then run side by side; each result or error.
   */
  readEach(plans: readonly ReadPlan[], context: RequestContext): Promise<PromiseSettledResult<ReadResult>[]>;
  /** A read with validators: 304 without running the plans while their tables are unchanged. */
  readCached(request: CachedReadRequest): Promise<CachedReadResponse>;
  /**
   * `readBack`: the plan the caller will read the record with afterwards
   * (given its id). Where the write can read it in its own statement (a
   * create on PostgreSQL), the result carries it as `record` and the caller
   * need not read.
   */
  write(context: RequestContext, plan: WritePlan, precondition?: WritePrecondition, readBack?: (id: string) => ReadPlan): Promise<WriteResult>;
  /**
   * Whether the context's principal may make this update at all, judged on
   * the stored record (404 when they may not see it, 403 when they may not
   * change it), ahead of the write: the front-ends ask before receiving a
   * file for a record, so a stranger's upload is never stored or decoded.
   * One statement for a plan with record rules, none otherwise; uncharged
   * (the write that follows is charged).
   */
  precheckWrite(context: RequestContext, plan: WritePlan): Promise<void>;
  /**
   * Watches a read: `send` gets its representation now and again each time
   * it changes (see live-reads.ts). Charged when it starts and for each
   * later run; rejects with LIVE_READS_LIMIT past the limits.
   */
  watch(request: LiveReadRequest, send: (value: LiveValue) => void): Promise<LiveRead>;
  /**
   * Counts a change-event subscription against the live-read limits of the
   * context's client until closed. Throws LIVE_READS_LIMIT past them.
   */
  holdLive(context: RequestContext): LiveRead;
  /** Deterministic demo data (`diglot seed`); returns rows written per table. */
  seed(options?: SeedOptions): Promise<Record<string, number>>;
  /** True when no resource table has a row (`npm start` seeds only then). */
  isEmpty(): Promise<boolean>;
  /**
   * What reading `plans` costs, in points: the rows they may return and
   * scan, with the tables' estimated sizes (see request-meter.ts). Every
   * read is charged this, on every transport.
   */
  readCost(plans: readonly ReadPlan[]): number;
  /** Asks the database for its tables' sizes now (they are otherwise refreshed after writes, now and then); resolves when they are in. */
  refreshTableSizes(): Promise<void>;
  /** SQL of a plan, for `diglot explain` and golden tests. */
  explain(plan: ReadPlan): { readonly sql: string; readonly params: readonly unknown[]; readonly tables: readonly string[] };
  /** The file store and image variants, when the engine has one. */
  readonly files: FileService | undefined;
  /**
   * Whether the context's principal may read some record holding the stored
   * file `key`, in a field they may read (rules applied): one statement.
   */
  mayReadFile(key: string, context: RequestContext): Promise<boolean>;
  /**
   * The change bus: every commit of this process and, through the database,
   * of the others, and one safety poll — what live reads and the event hub
   * (change-event subscriptions, webhooks) all hear (change-bus.ts).
   */
  readonly changes: ChangeBus;
  /**
   * Writes an event no record write carries (an account flow's reset or
   * verification link) and then tells the change bus, as a record
   * write's commit does: the event hub publishes it at once and wakes the
   * other instances (PostgreSQL: NOTIFY), rather than at its next poll.
   */
  recordEvent(event: AccountEvent): Promise<void>;
  /** Adds a check every later write passes through (see WriteGuard); returns the function that removes it. */
  guardWrites(guard: WriteGuard): () => void;
  /**
   * Runs `work` (which receives uploads and writes records with them) and
   * then settles every file it received: kept when a record points at it,
   * deleted otherwise — so a failed or abandoned upload leaves no orphan.
   * Each image is charged to the context's budget by its pixels
   * (`imageCost`) after its header is read and before it is decoded.
   */
  withUploads<T>(context: RequestContext, work: (receive: ReceiveUpload) => Promise<T>): Promise<T>;
  /**
   * Uses of deprecated things, counted by every read, write and live read
   * from their plans' `deprecations`: `flush()` adds the counts so far to
   * the database now (they are otherwise added every few seconds), `close()`
   * flushes and stops; `deprecatedAt` is the date a `Deprecation` header
   * gives, once the server has called `prepare(model)`; `record` counts uses
   * no plan is read for (a change-event subscription's, when it starts).
   */
  readonly deprecationUsage: Pick<DeprecationUsage, 'flush' | 'close' | 'prepare' | 'deprecatedAt' | 'record'>;
}

/**
 * How old the change clocks behind a plain (unconditional) read may be: the
 * resolution of `Last-Modified`. Revalidations always read them fresh.
 */
const SNAPSHOT_MAX_AGE_MS = 1000;

export function createEngine(model: Model, db: Database, options: EngineOptions = {}): Engine {
  db.useModel(model);
  const clock = new ChangeClock(db);
  const reader = new ReadExecutor(model, db, options.maxResponseLength);
  const files = options.files === undefined ? undefined : bindFiles(model, db, options.files);
  const writer = new WriteExecutor(model, db, clock, files?.release, options.maxCascade);
  const validators = new ValidatorCache();
  const sizes = new TableSizes(db, [...new Set(model.types.flatMap((type) => [type.table, ...joinTables(type)]))], options.tableSizesRefreshMs);
  // Asked once now and, after writes, now and then: never on a read's path.
  void sizes.refresh();
  clock.onCommitted(() => sizes.written());
  const costOf = (plans: readonly ReadPlan[]): number => readCost(model, plans, sizes.rowsOf);
  const changes = new ChangeBus(db);
  const live = new LiveReads(model, changes, clock, reader, costOf, options.live);
  // Each local commit, once: to this process's change bus, and to the other instances on the database (PostgreSQL: NOTIFY after COMMIT).
  const announce = db.announceChanges;
  clock.onCommitted((tables) => {
    changes.committed(tables);
    announce?.(tables);
  });

  const usage = new DeprecationUsage(db, options.deprecations);
  const countUses = (plans: readonly ReadPlan[], context: RequestContext): void => {
    for (const plan of plans) if (plan.deprecations.length > 0) usage.record(plan.deprecations, context);
  };

  const readCached = async (request: CachedReadRequest): Promise<CachedReadResponse> => {
    const { meter, principal } = request.context;
    countUses(request.plans, request.context);
    // Charged before anything runs, revalidations included: the asker's budget decides, not the cache.
    const charged = chargeReads(meter, () => costOf(request.plans));
    if (charged !== undefined) await charged;
    const policy = personalPolicy(model, cachePolicyOf(model, request.plans), principal);
    const key = `${request.key} ${askerKey(model, principal)}`;
    const [only] = request.plans;
    const tables = request.plans.length === 1 && only !== undefined ? reader.compile(only).tables : [...new Set(request.plans.flatMap((plan) => reader.compile(plan).tables))];
    const revalidating = request.ifNoneMatch !== undefined || request.ifModifiedSince !== undefined;
    // Read before the data, so the data is never older than the version its ETag is remembered under.
    const state = await clock.stateOf(tables, revalidating ? 0 : SNAPSHOT_MAX_AGE_MS);
    const known = revalidating ? validators.get(key, state.version) : undefined;
    // Under rules that hide rows or fields from this caller, the tables' clocks would tell of changes it may not see.
    const lastModified = rulesHideChanges(model, request.plans, principal) ? undefined : lastModifiedHeader(state.changedAt);
    if (request.ifNoneMatch !== undefined) {
      // Revalidation: the clocks alone decide, without running the plans.
      if (known !== undefined && ifNoneMatchMatches(request.ifNoneMatch, known)) return { status: 304, etag: known, lastModified, policy };
    } else if (request.ifModifiedSince !== undefined && lastModified !== undefined && unmodifiedSince(state.changedAt, request.ifModifiedSince)) {
      // RFC 9110 §13.1.3: If-Modified-Since counts only without If-None-Match.
      return { status: 304, etag: known, lastModified, policy };
    }
    const results: ReadResult[] = [];
    // Timed inline rather than through `timed`: this is every GET's path, and a closure a plan is not free.
    const started = performance.now();
    for (const plan of request.plans) results.push(await reader.read(plan));
    if (meter.planEnd === 0) meter.planEnd = started;
    meter.dbMs += performance.now() - started;
    const body = request.render(results);
    const etag = strongEtag(body);
    validators.set(key, state.version, etag);
    if (ifNoneMatchMatches(request.ifNoneMatch, etag)) return { status: 304, etag, lastModified, policy };
    return { status: 200, version: state.version, etag, lastModified, policy, body, results };
  };

  const guards = new Set<WriteGuard>();
  const write = async (context: RequestContext, plan: WritePlan, precondition?: WritePrecondition, readBack?: (id: string) => ReadPlan): Promise<WriteResult> => {
    for (const guard of guards) {
      const checked = guard.before(context, plan);
      if (checked !== undefined) await checked;
    }
    const charged = context.meter.spend(WRITE_COST);
    if (charged !== undefined) await charged;
    if (plan.deprecations !== undefined) usage.record(plan.deprecations, context);
    if (guards.size === 0) return timed(context.meter, () => writeNow(plan, precondition, readBack));
    let result: WriteResult;
    try {
      result = await timed(context.meter, () => writeNow(plan, precondition, readBack));
    } catch (error) {
      for (const guard of guards) {
        const noted = guard.failed(context, plan, error);
        if (noted !== undefined) await noted;
      }
      throw error;
    }
    for (const guard of guards) {
      const noted = guard.committed(context, plan, result);
      if (noted !== undefined) await noted;
    }
    return result;
  };

  const writeNow = (plan: WritePlan, precondition?: WritePrecondition, readBack?: (id: string) => ReadPlan): Promise<WriteResult> => {
    if (precondition === undefined) return writer.write(plan, undefined, readBack === undefined ? undefined : (id, source) => reader.readFrom(readBack(id), source));
    return writer.write(plan, async (tx) => {
      const result = await reader.read(precondition.plan, tx);
      const current = precondition.render(result);
      if ('ifUnmodifiedSince' in precondition) {
        if (current === undefined) throw new ApiError('PRECONDITION_FAILED', { detail: 'The record does not exist' });
        const modifiedAt = precondition.modifiedAt?.(current) ?? (await clock.stateIn(tx, reader.compile(precondition.plan).tables)).changedAt;
        if (!unmodifiedSince(modifiedAt, precondition.ifUnmodifiedSince)) {
          throw new ApiError('PRECONDITION_FAILED', { detail: 'The data changed after the date in If-Unmodified-Since: fetch it again and retry' });
        }
        return;
      }
      const etag = current === undefined ? undefined : strongEtag(current);
      if (!ifMatchMatches(precondition.ifMatch, etag)) {
        throw new ApiError('PRECONDITION_FAILED', {
          detail: etag === undefined ? 'The record does not exist' : 'The record changed since you read it: fetch it again and retry',
          extensions: etag === undefined ? {} : { etag },
        });
      }
    });
  };

  return {
    model,
    db,
    read: (plan, context) => {
      usage.record(plan.deprecations, context);
      return timed(context.meter, () => reader.read(plan));
    },
    readEach: async (plans, context) => {
      const charged = chargeReads(context.meter, () => costOf(plans));
      if (charged !== undefined) await charged;
      countUses(plans, context);
      return Promise.allSettled(plans.map((plan) => timed(context.meter, () => reader.read(plan))));
    },
    readCached,
    write,
    precheckWrite: (context, plan) => timed(context.meter, () => writer.precheck(plan)),
    mayReadFile: (key, context) => timed(context.meter, () => mayReadFile(model, db, key, context.principal)),
    watch: (request, send) => {
      // Counted when it starts: its re-runs are the same use.
      countUses(request.plans, request.context);
      return live.watch(request, send);
    },
    holdLive: (context) => live.hold(context),
    seed: async (seedOptions) => {
      const written = await seedDatabase(model, db, clock, seedOptions, files);
      await sizes.refresh();
      return written;
    },
    readCost: costOf,
    refreshTableSizes: () => sizes.refresh(),
    isEmpty: async () => {
      for (const type of model.types) {
        const { sql, params } = compileAnyRow(db.sql, type.table);
        const rows = await db.all(sql, params);
        if (rows.length > 0) return false;
      }
      return true;
    },
    explain: (plan) => {
      const compiled = reader.compile(plan);
      return { sql: compiled.sql, params: compiled.paramOrder.map((index) => plan.params[index]), tables: compiled.tables };
    },
    files: options.files,
    guardWrites: (guard) => {
      guards.add(guard);
      return () => guards.delete(guard);
    },
    recordEvent: async (event) => {
      await recordAccountEvent(db, db.sql, event);
      // No clock moved: the bus is told directly, so the event hub publishes it now.
      changes.committed([]);
    },
    changes,
    deprecationUsage: usage,
    withUploads: (context, work) => {
      // The front-ends register upload routes only when there is a file store.
      if (files === undefined) throw new Error('this engine has no file store');
      return files.withUploads(context, work);
    },
  };
}

/** The join tables a type's many-to-many relations read through (their sizes price scans of those relations). */
function joinTables(type: Model['types'][number]): string[] {
  return type.fields.flatMap((field) => (field.kind === 'manyToMany' ? [field.joinTable] : []));
}
