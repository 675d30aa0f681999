#!/usr/bin/env node
// The version check must run before anything loads better-sqlite3, whose
// N-API build crashes (rather than failing politely) on Node older than 22;
// node-version.js imports nothing.
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.version);
if (problem !== undefined) {
  console.error(problem);
  process.exit(1);
}
const { restartWithServerFlags } = await import('./heap-flags.js');
restartWithServerFlags(process.argv);
const { runCli } = await import('./run-cli.js');
await runCli(process.argv);
