/**
 * V8 flags a server runs with. V8 sizes its young generation by how much
 * survives each scavenge, up to 64 MiB per semi-space in Node 24: a server
 * whose requests wait on PostgreSQL keeps many objects alive across
 * scavenges, and grew it to the full 128 MiB — peak RSS about 300 MiB under
 * the W5 benchmark against about 210 MiB with 16 MiB semi-spaces, at the same
 * throughput (SQLite servers never grew past 16 MiB). These sizes are read
 * only when V8 starts, so they cannot be set from inside the process.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

const flagName = (flag: string): string => flag.split('=')[0] ?? flag;

/**
 * For `serve` and `start`: replaces this process (same pid, arguments and
 * environment) with one that runs with SERVER_NODE_FLAGS, unless the user
 * chose values of their own (node flags or NODE_OPTIONS). Does nothing where
 * a process cannot be replaced: Windows, Node before 22.15, or a process
 * with an IPC channel, whose descriptor would not survive the exec.
 */
export function restartWithServerFlags(argv: readonly string[]): void {
  const command = argv[2];
  if (command !== 'serve' && command !== 'start') return;
  if (typeof process.execve !== 'function' || process.channel !== undefined) return;
  const chosen = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)].map(flagName);
  const missing = SERVER_NODE_FLAGS.filter((flag) => !chosen.includes(flagName(flag)));
  if (missing.length === 0) return;
  process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, ...argv.slice(1)], process.env);
}
