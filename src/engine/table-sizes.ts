import type { Database } from '../storage/dialect.js';

/** How often, at most, the estimates are asked for again (ms): they only have to say "small" or "large". */
export const TABLE_SIZES_REFRESH_MS = 60_000;

/**
 * The rows of each table, as the database estimates them (Database.estimateRows),
 * kept in memory for the cost of reads: read on the hot path without a
 * statement, asked for again in the background after a write once they are
 * older than `refreshMs` (only writes change them). A table not estimated
 * yet counts as empty.
 */
export class TableSizes {
  #sizes = new Map<string, number>();
  #askedAt = -Infinity;
  #refreshing: Promise<void> | undefined;

  constructor(
    private readonly db: Database,
    private readonly tables: readonly string[],
    private readonly refreshMs = TABLE_SIZES_REFRESH_MS,
  ) {}

  /** Estimated rows of `table` (0 when unknown). */
  readonly rowsOf = (table: string): number => this.#sizes.get(table) ?? 0;

  /** Asks for the estimates now; resolves when they are in (a failure keeps the ones before). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.db
      .estimateRows(this.tables)
      .then(
        (sizes) => {
          this.#sizes = sizes;
        },
        () => undefined,
      )
      .finally(() => {
        this.#askedAt = performance.now();
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }

  /** After a write: asks again, in the background, when the estimates are older than the refresh interval. */
  written(): void {
    if (this.#refreshing === undefined && performance.now() - this.#askedAt >= this.refreshMs) void this.refresh();
  }
}
