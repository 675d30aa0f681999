import { getHeapStatistics } from 'node:v8';
import { databaseFromEnv } from './database-env.js';

/**
 * V8 flags a server runs with: a bounded young generation, which V8 would
 * otherwise grow to 3 × 64 MiB on a large host while requests wait on
 * PostgreSQL (8 MiB semi-spaces there; 16 for SQLite, where 8 cost
 * scavenges on large responses). Read only when V8 starts, hence a restart.
 * The measurements: bench/HISTORY.md, "Semi-space sizes".
 */
export function serverNodeFlags(db: string): readonly string[] {
  return [`--max-semi-space-size=${/^postgres(?:ql)?:\/\//i.test(db) ? 8 : 16}`];
}

/**
 * The database `serve` will open, as the CLI reads it: `--db`/`-d` (either
 * spelling, with `=` or a space), else DIGLOT_DB, else DATABASE_URL; '' for
 * the default, a SQLite file.
 */
export function databaseOf(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
  for (let i = 3; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [name, value] = arg.split(/=(.*)/s);
    if (name === '--db' || name === '-d') return value ?? argv[i + 1] ?? '';
  }
  return databaseFromEnv(env) ?? '';
}

/**
 * Below this heap limit V8's own maximum semi-space is 16 MiB or less
 * (Node's documentation: at most 16 MiB up to a 2 GiB limit, 1 MiB at
 * 512 MiB), so the flag would raise it, not bound it. The limit counts the
 * young generation too: three semi-spaces.
 */
export const SMALL_HEAP_BYTES = (2048 + 3 * 16) * 1024 * 1024;

/** `--max_semi_space_size=32`, `"--max-semi-space-size=32"` → `--max-semi-space-size`. */
const flagName = (token: string): string => (token.replace(/^["']|["']$/g, '').split('=')[0] ?? '').replaceAll('_', '-');

/**
 * The command line that runs this process again with serverNodeFlags, or
 * undefined when it should run as it is: a command other than `serve` or
 * `start`, flags the user chose (on the command line or in NODE_OPTIONS),
 * a debugger (it would stop twice), or a heap too small for the flags to
 * bound anything.
 */
export function serverRestartArgs(
  execPath: string,
  execArgv: readonly string[],
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  heapLimitBytes: number,
): string[] | undefined {
  const command = argv[2];
  if (command !== 'serve' && command !== 'start') return undefined;
  if (heapLimitBytes <= SMALL_HEAP_BYTES) return undefined;
  const chosen = [...execArgv, ...(env['NODE_OPTIONS'] ?? '').split(/\s+/)].map(flagName);
  if (chosen.some((name) => name.startsWith('--inspect'))) return undefined;
  const missing = serverNodeFlags(databaseOf(argv, env)).filter((flag) => !chosen.includes(flagName(flag)));
  if (missing.length === 0) return undefined;
  return [execPath, ...missing, ...execArgv, ...argv.slice(1)];
}

/**
 * Replaces this process (same pid, arguments and environment) with one that
 * runs with serverNodeFlags, where serverRestartArgs says so and the
 * process can be replaced: not on Windows (execve exists there but throws),
 * not with an IPC channel (PM2, cluster workers, a parent's fork: its
 * descriptor would not survive), and not when execve fails (a permission
 * model without child processes, for one); the server then runs with V8's
 * defaults.
 */
export function restartWithServerFlags(argv: readonly string[]): void {
  if (process.platform === 'win32' || process.channel !== undefined || typeof process.execve !== 'function') return;
  const args = serverRestartArgs(process.execPath, process.execArgv, argv, process.env, getHeapStatistics().heap_size_limit);
  if (args === undefined) return;
  try {
    process.execve(process.execPath, args, process.env);
  } catch {
    // Not replaced: run as started.
  }
}
