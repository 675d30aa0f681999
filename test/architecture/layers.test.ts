/**
 * The import graph of `src/` follows the layer table in docs/architecture.md:
 * imports only point down, the two front-ends never touch storage or each
 * other, the two database drivers never touch each other, and no two folders
 * import each other (directly or round a longer loop). And no SQL is written
 * outside `src/storage/`: a string or template literal anywhere else that
 * reads as a statement fails the build.
 *
 * Specifiers come from the TypeScript parser (not a regex), so `import`,
 * `import type`, `export ... from`, `import('...')`, `import('...').T` in a
 * type position and `import x = require('...')` are all seen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ---------------------------------------------------------------------------
// The rules

/** Top-level folder of `src/` → layer. `index` is `src/index.ts`. */
const LAYERS: Readonly<Record<string, number>> = {
  util: 0,
  errors: 0,
  schema: 1,
  plan: 2,
  storage: 3,
  engine: 4,
  files: 4,
  events: 4,
  auth: 4,
  admin: 4,
  rest: 5,
  graphql: 5,
  server: 6,
  cli: 6,
  index: 6,
};

/** Below this layer, two different folders on the same layer may not import each other. */
const SIBLING_IMPORTS_FROM_LAYER = 4;

const FRONT_ENDS = new Set(['rest', 'graphql']);
/** All a front-end may import besides itself: no storage, no SQL. */
const FRONT_END_MAY_IMPORT = new Set(['plan', 'engine', 'schema', 'errors', 'util', 'files', 'events', 'auth', 'admin']);

/**
 * Driver folders: units of their own for the rule that they never import each
 * other; for layers and cycles they are part of `storage`, so a driver may use
 * the storage contract while `storage/open-database.ts` picks a driver.
 */
const DRIVERS = new Set(['storage/sqlite', 'storage/postgres']);

// ---------------------------------------------------------------------------
// The checker (pure: takes file paths and texts, returns violations)

export interface SourceText {
  /** Repository-relative POSIX path, e.g. `src/rest/handle-get.ts`. */
  readonly path: string;
  readonly text: string;
}

export interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly rule: string;
}

interface ImportRef {
  readonly specifier: string;
  /** False for a dynamic import whose argument is not a string literal. */
  readonly literal: boolean;
}

/** Every module specifier a file mentions. */
export function extractImports(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: ImportRef[] = [];
  const addLiteral = (node: ts.Node | undefined): void => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push({ specifier: node.text, literal: true });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      addLiteral(node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      addLiteral(node.moduleReference.expression);
    } else if (ts.isImportTypeNode(node)) {
      if (ts.isLiteralTypeNode(node.argument)) addLiteral(node.argument.literal);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteralLike(arg)) addLiteral(arg);
      else found.push({ specifier: arg === undefined ? '' : arg.getText(source), literal: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The unit a `src/` file belongs to: its top-level folder, except that the
 * drivers under `storage/` are units of their own. Undefined outside `src/`.
 */
export function unitOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  if (parts.length === 2) return parts[1] === 'index.ts' ? 'index' : parts[1];
  const top = parts[1] ?? '';
  const sub = `${top}/${parts[2] ?? ''}`;
  return parts.length > 3 && DRIVERS.has(sub) ? sub : top;
}

function topOf(unit: string): string {
  return unit.split('/')[0] ?? unit;
}

function layerOf(unit: string): number | undefined {
  return LAYERS[topOf(unit)];
}

function isTestFile(path: string): boolean {
  return /\.test\.ts$/.test(path);
}

interface Edge {
  readonly file: string;
  readonly specifier: string;
  readonly from: string;
  readonly to: string;
}

/** The rule an import from unit `from` to unit `to` breaks, if any. */
function ruleBroken(from: string, to: string): string | undefined {
  const fromLayer = layerOf(from);
  const toLayer = layerOf(to);
  if (fromLayer === undefined || toLayer === undefined) return `"${to}" is not in the layer table`;
  if (from === to) return undefined;
  const fromTop = topOf(from);
  const toTop = topOf(to);
  if (DRIVERS.has(from) && DRIVERS.has(to)) return `drivers never import each other (${from} → ${to})`;
  if (FRONT_ENDS.has(fromTop) && FRONT_ENDS.has(toTop) && fromTop !== toTop) {
    return `front-ends never import each other (${fromTop} → ${toTop})`;
  }
  if (FRONT_ENDS.has(fromTop) && fromTop !== toTop && !FRONT_END_MAY_IMPORT.has(toTop)) {
    return toTop === 'storage'
      ? `no SQL in front-ends: ${fromTop} may not import ${to}`
      : `${fromTop} may import only ${[...FRONT_END_MAY_IMPORT].join(', ')} (not ${to})`;
  }
  if (toLayer > fromLayer) return `upward import: ${from} (layer ${fromLayer}) → ${to} (layer ${toLayer})`;
  if (toLayer === fromLayer && fromTop !== toTop && fromLayer < SIBLING_IMPORTS_FROM_LAYER) {
    return `same-layer import below layer ${SIBLING_IMPORTS_FROM_LAYER}: ${from} → ${to}`;
  }
  return undefined;
}

/** Strongly connected components with more than one unit (Tarjan). */
function cyclicGroups(units: readonly string[], next: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const unit of units) if (!index.has(unit)) connect(unit);
  return groups;
}

/**
 * Check the import graph of the given `src/` files. Test files (`*.test.ts`)
 * are not shipped and may import anything, but nothing may import them.
 */
export function checkLayers(files: readonly SourceText[]): Violation[] {
  const violations: Violation[] = [];
  const edges: Edge[] = [];
  for (const file of files) {
    const from = unitOf(file.path);
    if (from === undefined) continue;
    if (layerOf(from) === undefined) {
      violations.push({ file: file.path, specifier: '', rule: `"${from}" is not in the layer table` });
      continue;
    }
    const testFile = isTestFile(file.path);
    for (const ref of extractImports(file.path, file.text)) {
      if (!ref.literal) {
        if (!testFile) {
          violations.push({ file: file.path, specifier: ref.specifier, rule: 'dynamic import with a computed specifier cannot be checked' });
        }
        continue;
      }
      if (!ref.specifier.startsWith('.')) continue; // a package or node: builtin
      const target = posix.normalize(posix.join(posix.dirname(file.path), ref.specifier));
      if (!testFile && /\.test\.[cm]?[jt]s$/.test(target)) {
        violations.push({ file: file.path, specifier: ref.specifier, rule: 'production code imports a test file' });
        continue;
      }
      if (testFile) continue;
      const to = unitOf(target);
      if (to === undefined) {
        violations.push({ file: file.path, specifier: ref.specifier, rule: `imports from outside src/ (${target})` });
        continue;
      }
      const rule = ruleBroken(from, to);
      if (rule !== undefined) violations.push({ file: file.path, specifier: ref.specifier, rule });
      else if (topOf(from) !== topOf(to)) edges.push({ file: file.path, specifier: ref.specifier, from: topOf(from), to: topOf(to) });
    }
  }

  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    const targets = next.get(edge.from) ?? new Set<string>();
    targets.add(edge.to);
    next.set(edge.from, targets);
  }
  const units = [...new Set(edges.flatMap((e) => [e.from, e.to]))].sort();
  for (const group of cyclicGroups(units, next)) {
    const members = new Set(group);
    for (const edge of edges) {
      if (members.has(edge.from) && members.has(edge.to)) {
        violations.push({
          file: edge.file,
          specifier: edge.specifier,
          rule: `import cycle between folders ${group.join(' ↔ ')} (${edge.from} → ${edge.to})`,
        });
      }
    }
  }
  return violations;
}

/**
 * SQL as it is written in the code base: upper-case keywords starting a
 * statement or clause (`SELECT …`, `INSERT INTO`, `DELETE FROM`, `CREATE …`,
 * `… DO UPDATE SET`) and PostgreSQL's and SQLite's own vocabulary. User-facing
 * text spells these words in lower case (`diglot migrate` says "create
 * table"), so none of its strings match.
 */
const SQL_TEXT: readonly RegExp[] = [
  /\bSELECT\s/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s/,
  /\bDELETE\s+FROM\b/,
  /\bCREATE\s/,
  /\bDROP\s+(TABLE|INDEX|SCHEMA|DATABASE|TRIGGER|VIEW)\b/,
  /\bALTER\s+TABLE\b/,
  /\bON\s+CONFLICT\b/,
  /\bPRAGMA\s/,
  /\bpg_(advisory|notify|catalog|stat|try_advisory)/,
];

/**
 * Every string and template literal of a file that reads as SQL, with its
 * line. A template's `${…}` parts count as one word, so `UPDATE ${table} SET`
 * is seen whole.
 */
export function findSqlText(fileName: string, text: string): { readonly line: number; readonly text: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { line: number; text: string }[] = [];
  const check = (node: ts.Node, literal: string): void => {
    if (SQL_TEXT.some((pattern) => pattern.test(literal))) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: literal });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node)) check(node, node.text);
    else if (ts.isTemplateExpression(node)) check(node, node.head.text + node.templateSpans.map((span) => `\${…}${span.literal.text}`).join(''));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** SQL text in a `src/` file outside `src/storage/` (tests excluded: they may look into the database). */
export function checkSqlPlacement(files: readonly SourceText[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const unit = unitOf(file.path);
    if (unit === undefined || topOf(unit) === 'storage' || isTestFile(file.path)) continue;
    for (const hit of findSqlText(file.path, file.text)) {
      violations.push({ file: `${file.path}:${hit.line}`, specifier: '', rule: `SQL outside src/storage/: ${JSON.stringify(hit.text.slice(0, 60))}` });
    }
  }
  return violations;
}

export function formatViolation(v: Violation): string {
  return v.specifier === '' ? `${v.file}: ${v.rule}` : `${v.file} → ${v.specifier}: ${v.rule}`;
}

// ---------------------------------------------------------------------------
// Reading the real tree

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function readSources(): SourceText[] {
  const srcDir = join(ROOT, 'src');
  return readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .sort()
    .map((name) => {
      const full = join(srcDir, name);
      return { path: relative(ROOT, full).split(sep).join('/'), text: readFileSync(full, 'utf8') };
    });
}

// ---------------------------------------------------------------------------

describe('layer rules on src/', () => {
  it('finds the source files', () => {
    const paths = readSources().map((f) => f.path);
    expect(paths).toContain('src/errors/registry.ts');
    expect(paths).toContain('src/plan/read-plan.ts');
  });

  it('every import points down the layer table, with no cycles between folders', () => {
    expect(checkLayers(readSources()).map(formatViolation)).toEqual([]);
  });

  it('no SQL is written outside src/storage/', () => {
    expect(checkSqlPlacement(readSources()).map(formatViolation)).toEqual([]);
  });
});

describe('the checker itself', () => {
  const file = (path: string, text: string): SourceText => ({ path, text });

  it('sees every kind of import, and only module specifiers', () => {
    const text = [
      `import { a } from './a.js';`,
      `import type { B } from '../b.js';`,
      `import './side-effect.js';`,
      `export { c } from './c.js';`,
      `export * from './d.js';`,
      `export type { E } from './e.js';`,
      `const f = await import('./f.js');`,
      `type G = import('./g.js').G;`,
      `import h = require('./h.js');`,
      `const x = import(name);`,
      `const s = "import { z } from './not-an-import.js'";`,
      `// import { y } from './commented.js';`,
    ].join('\n');
    expect(extractImports('x.ts', text)).toEqual([
      { specifier: './a.js', literal: true },
      { specifier: '../b.js', literal: true },
      { specifier: './side-effect.js', literal: true },
      { specifier: './c.js', literal: true },
      { specifier: './d.js', literal: true },
      { specifier: './e.js', literal: true },
      { specifier: './f.js', literal: true },
      { specifier: './g.js', literal: true },
      { specifier: './h.js', literal: true },
      { specifier: 'name', literal: false },
    ]);
  });

  it('accepts a tree that follows the rules', () => {
    const files = [
      file('src/errors/api-error.ts', `import { ERROR_REGISTRY } from './registry.js';`),
      file('src/plan/read-plan.ts', `import type { Model } from '../schema/model.js';\nimport { ApiError } from '../errors/api-error.js';`),
      file('src/storage/compile.ts', `import type { ReadPlan } from '../plan/read-plan.js';`),
      file('src/storage/sqlite/open.ts', `import type { Database } from '../dialect.js';\nimport Sqlite from 'better-sqlite3';`),
      file('src/engine/run.ts', `import { compile } from '../storage/compile.js';\nimport { sign } from '../auth/sign.js';`),
      file('src/auth/sign.ts', `import { createHash } from 'node:crypto';`),
      file('src/rest/get.ts', `import { run } from '../engine/run.js';\nimport { readPlan } from '../plan/read-plan.js';`),
      file('src/server/app.ts', `import { get } from '../rest/get.js';\nimport { open } from '../storage/sqlite/open.js';`),
      file('src/index.ts', `export * from './server/app.js';`),
      // Inside storage, the contract and the drivers may refer to each other.
      file('src/storage/open-database.ts', `import { open } from './sqlite/open.js';\nimport { connect } from './postgres/connect.js';`),
      file('src/storage/postgres/connect.ts', `import type { Database } from '../dialect.js';`),
      // Tests may reach anywhere (a REST test needs a real database and the server).
      file('src/rest/get.test.ts', `import { open } from '../storage/sqlite/open.js';\nimport { app } from '../server/app.js';`),
    ];
    expect(checkLayers(files)).toEqual([]);
  });

  it('reports each broken rule with the file and the import', () => {
    const files = [
      file('src/plan/bad-upward.ts', `import { run } from '../engine/run.js';`),
      file('src/rest/bad-sql.ts', `import { compile } from '../storage/compile.js';`),
      file('src/rest/bad-driver.ts', `export { open } from '../storage/sqlite/open.js';`),
      file('src/graphql/bad-sibling.ts', `const m = await import('../rest/get.js');`),
      file('src/rest/bad-server.ts', `import type { App } from '../server/app.js';`),
      file('src/storage/sqlite/bad-driver.ts', `import { pgError } from '../postgres/errors.js';`),
      file('src/util/bad-same-layer.ts', `import { ApiError } from '../errors/api-error.js';`),
      file('src/engine/bad-outside.ts', `import pkg from '../../package.json' with { type: 'json' };`),
      file('src/engine/bad-test.ts', `import { helper } from './run.test.js';`),
      file('src/files/bad-computed.ts', `const m = await import(\`./\${name}.js\`);`),
    ];
    expect(checkLayers(files).map(formatViolation)).toEqual([
      'src/plan/bad-upward.ts → ../engine/run.js: upward import: plan (layer 2) → engine (layer 4)',
      'src/rest/bad-sql.ts → ../storage/compile.js: no SQL in front-ends: rest may not import storage',
      'src/rest/bad-driver.ts → ../storage/sqlite/open.js: no SQL in front-ends: rest may not import storage/sqlite',
      'src/graphql/bad-sibling.ts → ../rest/get.js: front-ends never import each other (graphql → rest)',
      'src/rest/bad-server.ts → ../server/app.js: rest may import only plan, engine, schema, errors, util, files, events, auth, admin (not server)',
      'src/storage/sqlite/bad-driver.ts → ../postgres/errors.js: drivers never import each other (storage/sqlite → storage/postgres)',
      'src/util/bad-same-layer.ts → ../errors/api-error.js: same-layer import below layer 4: util → errors',
      'src/engine/bad-outside.ts → ../../package.json: imports from outside src/ (package.json)',
      'src/engine/bad-test.ts → ./run.test.js: production code imports a test file',
      'src/files/bad-computed.ts → `./${name}.js`: dynamic import with a computed specifier cannot be checked',
    ]);
  });

  it('reports a folder or root file that is missing from the layer table', () => {
    const files = [
      file('src/widgets/thing.ts', `export const x = 1;`),
      file('src/version.ts', `export const version = '1';`),
      file('src/util/y.ts', `import { x } from '../widgets/thing.js';`),
    ];
    expect(checkLayers(files).map(formatViolation)).toEqual([
      'src/widgets/thing.ts: "widgets" is not in the layer table',
      'src/version.ts: "version.ts" is not in the layer table',
      'src/util/y.ts → ../widgets/thing.js: "widgets" is not in the layer table',
    ]);
  });

  it('reports cycles between top-level folders, including ones allowed edge by edge', () => {
    const files = [
      // Layer-4 siblings may import each other, but not both ways.
      file('src/engine/run.ts', `import { publish } from '../events/publish.js';`),
      file('src/events/publish.ts', `import type { Engine } from '../auth/engine-ref.js';`),
      file('src/auth/engine-ref.ts', `export type { Engine } from '../engine/run.js';`),
      // Two layer-5/6 folders allowed one way round by the layer table.
      file('src/server/app.ts', `import { main } from '../cli/main.js';`),
      file('src/cli/main.ts', `import { app } from '../server/app.js';`),
    ];
    expect(checkLayers(files).map(formatViolation).sort()).toEqual([
      'src/auth/engine-ref.ts → ../engine/run.js: import cycle between folders auth ↔ engine ↔ events (auth → engine)',
      'src/cli/main.ts → ../server/app.js: import cycle between folders cli ↔ server (cli → server)',
      'src/engine/run.ts → ../events/publish.js: import cycle between folders auth ↔ engine ↔ events (engine → events)',
      'src/events/publish.ts → ../auth/engine-ref.js: import cycle between folders auth ↔ engine ↔ events (events → auth)',
      'src/server/app.ts → ../cli/main.js: import cycle between folders cli ↔ server (server → cli)',
    ]);
  });

  it('finds SQL in strings and templates outside storage, and nowhere else', () => {
    const files = [
      file('src/engine/bad-update.ts', 'const lock = `UPDATE ${q(table)} SET ${id} = ${id} WHERE ${id} = ${p(0)}`;'),
      file('src/engine/bad-select.ts', `const sql = 'SELECT 1 AS found FROM users';`),
      file('src/engine/bad-lease.ts', `await db.all("SELECT pg_advisory_lock($1)", [key]);`),
      file('src/cli/bad-create.ts', 'const ddl = `CREATE TABLE ${name} (id TEXT)`;'),
      // Comments, lower-case prose and storage's own SQL are fine.
      file('src/cli/fine.ts', `// SELECT * FROM users\nconst help = 'migrate: create tables, select a database';`),
      file('src/storage/fine.ts', `const sql = 'DELETE FROM users WHERE id = ?';`),
      file('src/engine/fine.test.ts', `const rows = await db.all('SELECT * FROM users');`),
    ];
    expect(checkSqlPlacement(files).map(formatViolation)).toEqual([
      'src/engine/bad-update.ts:1: SQL outside src/storage/: "UPDATE ${…} SET ${…} = ${…} WHERE ${…} = ${…}"',
      'src/engine/bad-select.ts:1: SQL outside src/storage/: "SELECT 1 AS found FROM users"',
      'src/engine/bad-lease.ts:1: SQL outside src/storage/: "SELECT pg_advisory_lock($1)"',
      'src/cli/bad-create.ts:1: SQL outside src/storage/: "CREATE TABLE ${…} (id TEXT)"',
    ]);
  });
});
