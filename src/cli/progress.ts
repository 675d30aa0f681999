import cliProgress from 'cli-progress';
import type { SeedProgress } from '../engine/engine.js';

/**
 * A progress bar per table on stderr (stdout stays machine-readable). On a
 * non-TTY (CI logs) cli-progress falls back to no redraws, so we print one
 * line per finished table instead.
 */
export function createSeedProgress(): { update: (event: SeedProgress) => void; stop: () => void } {
  const interactive = process.stderr.isTTY;
  const bar = interactive
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: 'seeding {table} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let current: string | undefined;
  return {
    update: (event) => {
      if (event.table !== current) {
        current = event.table;
        if (bar !== undefined) {
          bar.stop();
          bar.start(event.total, 0, { table: event.table });
        }
      }
      bar?.update(event.done, { table: event.table });
      if (bar === undefined && event.done === event.total) process.stderr.write(`seeded ${event.table}: ${event.total}\n`);
    },
    stop: () => bar?.stop(),
  };
}
