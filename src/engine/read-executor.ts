import { ApiError } from '../errors/api-error.js';
import { LruCache } from '../util/lru-cache.js';
import type { ListResult, ReadPlan } from '../plan/read-plan.js';
import type { Model } from '../schema/model.js';
import { compileRead, type CompiledRead } from '../storage/compile/compile-read.js';
import type { SqlStatement } from '../storage/compile/compile-write.js';
import type { Database, SqlRunner, SqlValue } from '../storage/dialect.js';

export type ReadResult = { readonly kind: 'one'; readonly json: string | null } | ({ readonly kind: 'list' } & ListResult);

const CACHE_LIMIT = 2000;
const DEFAULT_MAX_RESPONSE_LENGTH = 16 * 1024 * 1024;

/**
 * Runs read plans: compile once per shape (LRU by insertion order), bind the
 * plan's params, run the one statement, stitch the root rows.
 */
export class ReadExecutor {
  private readonly compiled = new LruCache<string, CompiledRead>(CACHE_LIMIT);
  /** Front-ends that reuse a plan's root object (plan templates) skip even the shape key. */
  private readonly byRoot = new WeakMap<ReadPlan['root'], CompiledRead>();
  /** The same for `readFrom`, by source. */
  private readonly byRootFrom = new WeakMap<ReadPlan['root'], Map<string, CompiledRead>>();

  constructor(
    private readonly model: Model,
    private readonly db: Database,
    private readonly maxLength = DEFAULT_MAX_RESPONSE_LENGTH,
  ) {}

  /** The compiled form of a plan (cached): its SQL and the tables it reads. */
  compile(plan: ReadPlan): CompiledRead {
    const known = this.byRoot.get(plan.root);
    if (known !== undefined) return known;
    const compiled = this.compileShape(plan);
    this.byRoot.set(plan.root, compiled);
    return compiled;
  }

  /**
   * A root `one` plan as a SELECT over `source`, a `WITH` clause of the
   * statement it becomes part of (see `compileRead`), with its params bound.
   */
  readFrom(plan: ReadPlan, source: string): SqlStatement {
    let bySource = this.byRootFrom.get(plan.root);
    if (bySource === undefined) {
      bySource = new Map<string, CompiledRead>();
      this.byRootFrom.set(plan.root, bySource);
    }
    let compiled = bySource.get(source);
    if (compiled === undefined) {
      compiled = this.compileShape(plan, source);
      bySource.set(source, compiled);
    }
    return { sql: compiled.sql, params: compiled.paramOrder.map((index) => plan.params[index] as SqlValue) };
  }

  private compileShape(plan: ReadPlan, rootFrom?: string): CompiledRead {
    const shape = rootFrom === undefined ? JSON.stringify(plan.root) : `${rootFrom}:${JSON.stringify(plan.root)}`;
    const hit = this.compiled.get(shape);
    if (hit !== undefined) return hit;
    const compiled = compileRead(this.model, this.db.sql, plan, rootFrom);
    this.compiled.set(shape, compiled);
    return compiled;
  }

  /** `runner` lets a write transaction read what it is about to change (If-Match). */
  async read(plan: ReadPlan, runner: SqlRunner = this.db): Promise<ReadResult> {
    const compiled = this.compile(plan);
    const params = compiled.paramOrder.map((index) => plan.params[index] as SqlValue);
    const rows = await runner.all(compiled.sql, params);
    if (compiled.root === 'one') {
      const json = (rows[0]?.['j'] as string | undefined) ?? null;
      if (json !== null && json.length > this.maxLength) throw this.tooLarge(json.length);
      return { kind: 'one', json };
    }
    return { kind: 'list', ...this.stitchList(plan, compiled, rows) };
  }

  private tooLarge(length: number): ApiError {
    return new ApiError('QUERY_TOO_COMPLEX', {
      detail: `The answer would be about ${Math.ceil(length / 1024 / 1024)} MiB; the limit is ${Math.floor(this.maxLength / 1024 / 1024)} MiB (maxResponseLength). Ask for smaller pages, fewer fields or less nesting.`,
      extensions: { limit: 'maxResponseLength', maximum: this.maxLength },
    });
  }

  private parentNotFound(plan: ReadPlan): ApiError {
    const parent = plan.root.kind === 'list' ? plan.root.parent : undefined;
    return new ApiError('NOT_FOUND', { detail: `${parent?.type ?? 'Record'} ${String(plan.params[parent?.id.param ?? 0])} does not exist` });
  }

  private stitchList(plan: ReadPlan, compiled: CompiledRead, rows: Record<string, unknown>[]): ListResult {
    if (plan.root.kind !== 'list') throw new Error('list result for a non-list plan');
    const first = rows[0];
    const parentMissing =
      compiled.meta.parent === 'foundColumn'
        ? Number(first?.['parent_found'] ?? 0) === 0
        : compiled.meta.parent === 'missingRow' && rows.some((row) => row['j'] === null || row['j'] === undefined);
    if (parentMissing) throw this.parentNotFound(plan);
    const totalCount = compiled.meta.total ? Number(first?.['total'] ?? 0) : undefined;
    const page = rows.filter((row) => row['j'] !== null && row['j'] !== undefined);
    const limit = Number(plan.params[plan.root.node.page.limit.param]);
    const hasMore = page.length > limit;
    if (hasMore) page.length = limit;
    if (compiled.reversed) page.reverse();
    let length = 0;
    for (const row of page) length += (row['j'] as string).length + 1;
    // Checked before the join: past about 512 MiB a JavaScript string cannot be made at all.
    if (length > this.maxLength) throw this.tooLarge(length);
    const keyOf = (row: Record<string, unknown> | undefined): unknown[] | undefined =>
      row === undefined ? undefined : compiled.keyColumns.map((column) => row[column]);
    return {
      json: `[${page.map((row) => row['j'] as string).join(',')}]`,
      count: page.length,
      hasMore,
      startKey: keyOf(page[0]),
      endKey: keyOf(page[page.length - 1]),
      totalCount,
    };
  }
}
