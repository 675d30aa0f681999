/**
 * The database named by the environment, if any: DIGLOT_DB, else
 * DATABASE_URL. One place, because two readers need it: the CLI's `--db`
 * default, and the V8 flags chosen before the CLI parses anything
 * (heap-flags.ts), which differ by database.
 */
export function databaseFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env['DIGLOT_DB'] ?? env['DATABASE_URL'];
}
