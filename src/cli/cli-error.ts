/** Errors the CLI reports as one line and a non-zero exit, never a stack trace. */
export class CliError extends Error {}
