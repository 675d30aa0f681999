/** The oldest Node.js major Diglot runs on (better-sqlite3 13 needs it). */
export const OLDEST_NODE_MAJOR = 22;

/**
 * What to tell someone whose Node is too old, or undefined when it will do.
 * Both ways out work outside a clone of the repository: a project can bring
 * its own Node as the clone does, since npm and npx put
 * node_modules/.bin (where the `node` package links its binary) first on PATH.
 */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number(/^v?(\d+)/.exec(version)?.[1]);
  if (major >= OLDEST_NODE_MAJOR) return undefined;
  return [
    `diglot needs Node.js ${OLDEST_NODE_MAJOR} or newer, and this is ${version}. Either:`,
    `  - install Node.js 22 or 24 (https://nodejs.org/en/download), or`,
    `  - give this project its own Node 24: \`npm install --save-dev node@24\`; then \`npx diglot …\` and npm scripts run on it.`,
  ].join('\n');
}
