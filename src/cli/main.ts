#!/usr/bin/env node
// The version check must run before anything loads better-sqlite3, whose
// N-API build crashes (rather than failing politely) on Node older than 22.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `diglot needs Node.js 22 or newer (this is ${process.version}). ` +
      'Run it through npm (`npm start`, `npx diglot`), which uses the Node 24 installed with the project, or install Node 22/24.',
  );
  process.exit(1);
}
const { restartWithServerFlags } = await import('./heap-flags.js');
restartWithServerFlags(process.argv);
const { runCli } = await import('./run-cli.js');
await runCli(process.argv);
