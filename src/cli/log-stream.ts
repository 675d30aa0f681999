/** Where the server's log lines go: undefined leaves pino's JSON on stdout. */
export type LogStream = { write(line: string): void } | undefined;

/**
 * Pretty, coloured lines with a wall-clock time for a person at a terminal;
 * JSON (one object a line, epoch-millisecond times) for anything else, such
 * as a log collector or a pipe. The request fields are in each line's
 * message already, so the pretty form leaves them out; the request id stays.
 */
export async function createLogStream(terminal: boolean, destination?: NodeJS.WritableStream): Promise<LogStream> {
  if (!terminal) return undefined;
  // Loaded only for a terminal: a server writing JSON never pays for it.
  const { build } = await import('pino-pretty');
  return build({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,method,url,status,ms',
    singleLine: true,
    // A terminal is read by a person: lines must not be lost when the process exits.
    sync: true,
    ...(destination === undefined ? {} : { destination }),
  });
}
