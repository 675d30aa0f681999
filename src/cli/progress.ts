import cliProgress from 'cli-progress';
import type { SeedProgress } from '../engine/engine.js';
import type { MigrateProgress } from '../storage/migrate/migrate.js';

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

/**
 * Migration progress on stderr: step i of n with its description. A bar
 * that redraws on a terminal; one line per step elsewhere (CI logs), so a
 * long migration (an index built on a big table) shows where it is.
 */
export function createMigrateProgress(): { update: (event: MigrateProgress) => void; stop: () => void } {
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { stream: process.stderr, format: 'migrating [{bar}] step {value} of {total}: {step}', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  return {
    update: ({ step, index, total }) => {
      if (bar === undefined) {
        process.stderr.write(`migrating: step ${index + 1} of ${total}: ${step.description}\n`);
        return;
      }
      if (index === 0) bar.start(total, 0, { step: step.description });
      bar.update(index + 1, { step: step.description });
    },
    stop: () => bar?.stop(),
  };
}
