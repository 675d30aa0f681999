import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { API_KEY_NAME, generateApiKey, ROLE_NAME } from '../auth/api-key.js';
import type { AuthOptions } from '../auth/authenticator.js';
import { issueToken } from '../auth/issue-token.js';
import { newId } from '../util/ids.js';
import { ApiKeyStore } from '../storage/api-keys.js';
import { createEngine, EXAMPLE_COUNTS, type Engine } from '../engine/engine.js';
import { createFileService, DEFAULT_FILES_DIRECTORY } from '../files/file-service.js';
import { isApiError } from '../errors/api-error.js';
import { formatProblems, loadSchemaFiles } from '../schema/load-schema.js';
import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { formatPlan, migrate } from '../storage/migrate/migrate.js';
import { openDatabase } from '../storage/open-database.js';
import { createServer } from '../server/create-server.js';
import type { CorsOptions } from '../server/cors-policy.js';
import { normaliseOrigin } from '../server/cross-site-guard.js';
import { databaseFromEnv } from './database-env.js';
import { demoSecretPath, loadDemoSecret } from './demo-secret.js';

/** Errors the CLI reports as one line and a non-zero exit, never a stack trace. */
class CliError extends Error {}

const DEFAULT_SCHEMA = 'examples/social/schema.graphql';
const DEFAULT_DB = 'diglot.db';

export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('diglot')
    .description('One GraphQL SDL schema, served as REST and GraphQL from one engine, on SQLite or PostgreSQL.')
    .showHelpAfterError();

  const withSchema = (command: Command): Command =>
    command.option('-s, --schema <files...>', 'GraphQL SDL file(s)', [process.env['DIGLOT_SCHEMA'] ?? DEFAULT_SCHEMA]);
  const withDb = (command: Command): Command =>
    command.option('-d, --db <path|url>', 'SQLite file path or postgres:// URL', databaseFromEnv(process.env) ?? DEFAULT_DB);
  const withFiles = (command: Command): Command =>
    command.option('--files <dir>', 'directory for uploaded files and their resized variants', process.env['DIGLOT_FILES'] ?? DEFAULT_FILES_DIRECTORY);
  const withListen = (command: Command): Command =>
    command
      .option('-p, --port <n>', 'port to listen on', parsePort, parsePort(process.env['PORT'] ?? '4000'))
      .option('-H, --host <host>', 'interface to listen on', process.env['HOST'] ?? '127.0.0.1')
      .option('--persisted-documents <file>', 'trusted GraphQL documents (JSON map of sha256 → query, or an Apollo manifest)', process.env['DIGLOT_PERSISTED_DOCUMENTS'])
      .option('--only-persisted', 'accept only the trusted documents on /graphql', process.env['DIGLOT_ONLY_PERSISTED'] === 'true')
      .option('--require-if-match', 'answer 428 to REST writes without If-Match', process.env['DIGLOT_REQUIRE_IF_MATCH'] === 'true')
      .option('--allow-open-writes', 'serve a schema without @allow rules (anyone may change anything) on an address other than loopback', process.env['DIGLOT_ALLOW_OPEN_WRITES'] === 'true')
      .option('--cors-origin <origins>', 'origins whose pages may call the API from a browser, comma-separated (https://app.example.com), or *', process.env['DIGLOT_CORS_ORIGIN'])
      .option('--query-timeout <ms>', 'time budget of one SQL statement; past it the request answers 503 QUERY_TIMEOUT (0: none)', parseMilliseconds, parseMilliseconds(process.env['DIGLOT_QUERY_TIMEOUT'] ?? '5000'))
      // The secret's default is read in the action, not given here: `--help` prints defaults.
      .option('--jwt-secret <secret>', 'accept HS256/384/512 tokens signed with this secret, 32 bytes or more (prefer DIGLOT_JWT_SECRET: a flag shows in ps)')
      .option('--jwt-public-key <file>', 'accept RS/PS/ES/EdDSA tokens signed by the key in this file (PEM or JWK)', process.env['DIGLOT_JWT_PUBLIC_KEY'])
      .option('--jwks-url <url>', "accept RS/PS/ES/EdDSA tokens signed by a key of this JWKS (your identity provider's)", process.env['DIGLOT_JWKS_URL'])
      .option('--jwt-issuer <iss>', 'accept only tokens with this iss', process.env['DIGLOT_JWT_ISSUER'])
      .option('--jwt-audience <aud>', 'accept only tokens with this aud', process.env['DIGLOT_JWT_AUDIENCE'])
      .option('--jwt-id-claim <path>', "the claim holding the principal's id (dotted path)", process.env['DIGLOT_JWT_ID_CLAIM'] ?? 'sub')
      .option('--jwt-role-claim <path>', "the claim holding the principal's role (dotted path, such as app_metadata.role)", process.env['DIGLOT_JWT_ROLE_CLAIM'] ?? 'role');

  withSchema(program.command('check'))
    .description('validate a schema; prints every problem as file:line:column CODE message')
    .action(async (options: { schema: string[] }) => {
      const model = await loadModel(options.schema);
      process.stdout.write(`${options.schema.join(', ')}: ${model.types.length} types, ${model.joinTables.length} join tables, no problems\n`);
    });

  withDb(withSchema(program.command('migrate')))
    .description('bring the database to the schema')
    .option('--dry-run', 'print the plan without applying it', false)
    .option('--allow-destructive', 'allow dropping columns and tables, and narrowing types', false)
    .action(async (options: { schema: string[]; db: string; dryRun: boolean; allowDestructive: boolean }) => {
      const model = await loadModel(options.schema);
      await withDatabase(options.db, async (db) => {
        const result = await migrate(db, model, { allowDestructive: options.allowDestructive, dryRun: options.dryRun });
        process.stdout.write(`${formatPlan(result.steps)}\n`);
        if (options.dryRun) process.stdout.write('dry run: nothing applied\n');
      });
    });

  withFiles(withDb(withSchema(program.command('seed'))))
    .description('load deterministic demo data (1,000 users, 10,000 posts, 20,000 follows, 200 products, 2,000 orders for the example)')
    .option('--scale <factor>', 'multiply every count', parseScale, 1)
    .action(async (options: { schema: string[]; db: string; scale: number; files: string }) => {
      const model = await loadModel(options.schema);
      await withDatabase(options.db, async (db) => {
        await migrate(db, model, { allowDestructive: false, dryRun: false });
        await seed(createEngine(model, db, { files: createFileService({ directory: options.files }) }), options.scale);
      });
    });

  for (const [name, description, seedIfEmpty] of [
    ['serve', 'migrate (non-destructive changes only) and serve REST and GraphQL', false],
    ['start', 'migrate, seed demo data if the database is empty, and serve (what `npm start` runs)', true],
  ] as const) {
    withFiles(withListen(withDb(withSchema(program.command(name)))))
      .description(description)
      .action(async (options: ServeOptions) => {
        await serve(options, seedIfEmpty);
      });
  }

  const keys = program.command('keys').description('API keys for machines: `Authorization: Bearer <key>`; only their hashes are stored');
  withDb(keys.command('create'))
    .description('make an API key and print it (only this once)')
    .requiredOption('--role <ROLE>', "the key's role (a value of the schema's role enum, such as ADMIN)")
    .requiredOption('--name <name>', 'a name to list and revoke it by (letters, digits, . _ -)')
    .action(async (options: { db: string; role: string; name: string }) => {
      if (!ROLE_NAME.test(options.role)) throw new CliError(`--role ${JSON.stringify(options.role)} is not an enum value name`);
      if (!API_KEY_NAME.test(options.name)) throw new CliError(`--name ${JSON.stringify(options.name)}: use up to 64 letters, digits, dots, dashes and underscores`);
      await withApiKeys(options.db, async (store) => {
        const { key, hash } = generateApiKey();
        const id = newId();
        if (!(await store.insert({ id, name: options.name, role: options.role, hash, createdAt: new Date().toISOString() }))) {
          throw new CliError(`there is already an API key named ${options.name}`);
        }
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created API key ${options.name} (id ${id}, role ${options.role}); it is shown only now: the database keeps its hash\n`);
      });
    });
  withDb(keys.command('list'))
    .description('list the API keys (never the keys themselves)')
    .action(async (options: { db: string }) => {
      await withApiKeys(options.db, async (store) => {
        const rows = (await store.list()).map((key) => [key.id, key.name, key.role, key.createdAt, key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`]);
        if (rows.length === 0) {
          process.stdout.write('no API keys\n');
          return;
        }
        process.stdout.write(formatTable([['ID', 'NAME', 'ROLE', 'CREATED', 'STATUS'], ...rows]));
      });
    });
  withDb(keys.command('revoke'))
    .description('revoke an API key by id or name; servers refuse it within a few seconds (they trust a looked-up key for 5 s)')
    .argument('<id|name>')
    .action(async (which: string, options: { db: string }) => {
      await withApiKeys(options.db, async (store) => {
        const result = await store.revoke(which, new Date().toISOString());
        if (result === 'not-found') throw new CliError(`no API key has the id or name ${which}`);
        process.stdout.write(result === 'revoked' ? `revoked ${which}\n` : `${which} was already revoked\n`);
      });
    });

  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.stderr.write(`diglot: ${describe(error)}\n`);
    process.exitCode = 1;
  }
}

async function loadModel(files: readonly string[]): Promise<Model> {
  const result = await loadSchemaFiles(files);
  if (!result.ok) {
    process.stderr.write(`${formatProblems(result.problems)}\n`);
    throw new CliError(`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in the schema`);
  }
  return result.model;
}

async function withDatabase(target: string, work: (db: Database) => Promise<void>): Promise<void> {
  const db = await openDatabase(target);
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

async function withApiKeys(target: string, work: (store: ApiKeyStore) => Promise<void>): Promise<void> {
  await withDatabase(target, async (db) => {
    const store = new ApiKeyStore(db);
    if (!(await store.ready())) throw new CliError('this database has no API key table yet: run `diglot migrate` (or `serve`) on it first');
    await work(store);
  });
}

function formatTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => `${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`).join('');
}

async function seed(engine: Engine, scale: number): Promise<void> {
  const counts = Object.fromEntries(Object.entries(EXAMPLE_COUNTS).map(([type, count]) => [type, Math.round(count * scale)]));
  // Loaded here, not at start-up: only seeding draws progress bars.
  const { createSeedProgress } = await import('./progress.js');
  const progress = createSeedProgress();
  const started = performance.now();
  try {
    const written = await engine.seed({ counts, defaultCount: Math.round(100 * scale), onProgress: progress.update });
    progress.stop();
    const summary = Object.entries(written).map(([table, rows]) => `${rows} ${table}`).join(', ');
    process.stderr.write(`seeded ${summary} in ${((performance.now() - started) / 1000).toFixed(1)}s\n`);
  } catch (error) {
    progress.stop();
    throw error;
  }
}

interface ServeOptions {
  readonly schema: string[];
  readonly db: string;
  readonly port: number;
  readonly host: string;
  readonly persistedDocuments: string | undefined;
  readonly onlyPersisted: boolean;
  readonly requireIfMatch: boolean;
  readonly queryTimeout: number;
  readonly allowOpenWrites: boolean;
  readonly files: string;
  readonly corsOrigin: string | undefined;
  readonly jwtSecret: string | undefined;
  readonly jwtPublicKey: string | undefined;
  readonly jwksUrl: string | undefined;
  readonly jwtIssuer: string | undefined;
  readonly jwtAudience: string | undefined;
  readonly jwtIdClaim: string;
  readonly jwtRoleClaim: string;
}

/** The server's `auth` option from the flags and the environment; the admin key only ever from the environment (a flag would show in ps). */
function authOptions(options: ServeOptions): AuthOptions {
  const jwtSecret = options.jwtSecret ?? process.env['DIGLOT_JWT_SECRET'];
  const adminKey = process.env['DIGLOT_ADMIN_KEY'];
  let jwtPublicKey: string | undefined;
  if (options.jwtPublicKey !== undefined) {
    try {
      jwtPublicKey = readFileSync(options.jwtPublicKey, 'utf8');
    } catch (error) {
      throw new CliError(`--jwt-public-key ${options.jwtPublicKey}: ${(error as Error).message}`);
    }
  }
  return {
    ...(jwtSecret === undefined || jwtSecret === '' ? {} : { jwtSecret }),
    ...(jwtPublicKey === undefined ? {} : { jwtPublicKey }),
    ...(options.jwksUrl === undefined ? {} : { jwksUrl: options.jwksUrl }),
    ...(options.jwtIssuer === undefined ? {} : { issuer: options.jwtIssuer }),
    ...(options.jwtAudience === undefined ? {} : { audience: options.jwtAudience }),
    idClaim: options.jwtIdClaim,
    roleClaim: options.jwtRoleClaim,
    ...(adminKey === undefined || adminKey === '' ? {} : { adminKey }),
  };
}

/** The user `diglot start`'s member token speaks for: the demo data's ids are "1".."n" (engine/seed). */
const DEMO_USER = '42';
const DEMO_TOKEN_SECONDS = 7 * 24 * 3600;

async function serve(options: ServeOptions, seedIfEmpty: boolean): Promise<void> {
  const model = await loadModel(options.schema);
  // Secure by default: a schema without rules lets anyone change anything, which is for a developer's own machine.
  if (!model.hasRules && !isLoopback(options.host) && !options.allowOpenWrites) {
    throw new CliError(
      `${options.schema.join(', ')} has no @allow rules, so anyone who reaches ${options.host} could change or delete every record. ` +
        'Add rules (docs/rules.md), listen on 127.0.0.1, or pass --allow-open-writes if that is what you want.',
    );
  }
  // Checked before the database is opened: a typo in an origin touches nothing.
  const cors = corsOption(options.corsOrigin);
  const db = await openDatabase(options.db, { statementTimeoutMs: options.queryTimeout });
  const result = await migrate(db, model, { allowDestructive: false, dryRun: false }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  if (result.steps.length > 0) process.stderr.write(`migrated: ${result.steps.length} step(s) applied\n`);
  const files = createFileService({ directory: options.files });
  const engine = createEngine(model, db, { files });
  if (seedIfEmpty && (await engine.isEmpty())) await seed(engine, 1);
  const production = process.env['NODE_ENV'] === 'production';
  if (options.onlyPersisted && options.persistedDocuments === undefined) throw new CliError('--only-persisted needs --persisted-documents <file>');
  let auth = authOptions(options);
  // The demo (`start`) has credentials ready to use: a secret made on first start and kept, unless the environment gives its own.
  const demo = seedIfEmpty ? { path: demoSecretPath(options.db, options.files), secret: loadDemoSecret(demoSecretPath(options.db, options.files)) } : undefined;
  if (demo !== undefined) auth = { jwtSecret: demo.secret.jwtSecret, adminKey: demo.secret.adminKey, ...auth };
  const app = await createServer({
    engine,
    auth,
    logger: { level: process.env['LOG_LEVEL'] ?? 'info' },
    exposeInternals: process.env['NODE_ENV'] === 'development',
    requireIfMatch: options.requireIfMatch,
    ...cors,
    graphql: {
      // Field suggestions help developers and help attackers map a schema: off in production.
      hideSuggestions: production,
      ...(options.persistedDocuments === undefined
        ? {}
        : { persistedDocuments: { file: options.persistedDocuments, onlyPersisted: options.onlyPersisted } }),
    },
  }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  await app.listen({ port: options.port, host: options.host });

  // Graceful shutdown: stop accepting, let in-flight requests finish, then close the database.
  // Installed before the banner: whoever waits for it may signal at once.
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    void app
      .close()
      .then(() => db.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`diglot: shutdown failed: ${describe(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  const origin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const first = model.types[0];
  const credentials = demo === undefined ? [] : await demoCredentials(auth, demo.path);
  process.stdout.write(
    [
      '',
      `Diglot is serving ${options.schema.join(', ')} on ${db.dialect === 'sqlite' ? `SQLite (${options.db})` : 'PostgreSQL'}`,
      `  REST API   ${origin}/${first === undefined ? '' : `${first.path}?limit=5`}`,
      `  GraphQL    ${origin}/graphql`,
      `  Docs       ${origin}/docs`,
      `  OpenAPI    ${origin}/openapi.json`,
      `  Health     ${origin}/healthz`,
      `  Files      ${files.store.location}`,
      ...credentials,
      '',
    ].join('\n'),
  );
}

/** The banner's lines for `start`: an admin key and a member token, ready to send as `Authorization: Bearer …`. */
async function demoCredentials(auth: AuthOptions, secretPath: string): Promise<string[]> {
  if (auth.jwtSecret === undefined) return [];
  const claims = { sub: DEMO_USER, role: 'MEMBER', ...(auth.issuer === undefined ? {} : { iss: auth.issuer }), ...(auth.audience === undefined ? {} : { aud: auth.audience }) };
  const token = await issueToken(auth.jwtSecret, claims, DEMO_TOKEN_SECONDS);
  const ownAdminKey = process.env['DIGLOT_ADMIN_KEY'] !== undefined && process.env['DIGLOT_ADMIN_KEY'] !== '';
  return [
    'Send as Authorization: Bearer <credential>:',
    ownAdminKey ? '  Admin key  the value of DIGLOT_ADMIN_KEY' : `  Admin key  ${auth.adminKey ?? ''}   (kept in ${secretPath})`,
    `  Member     ${token}   (user ${DEMO_USER}, role MEMBER, valid 7 days)`,
  ];
}

function describe(error: unknown): string {
  if (isApiError(error)) return `${error.code}: ${error.detail ?? error.title}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** `--cors-origin`: `*`, or origins separated by commas; each checked here, so a typo stops the start with one line. */
function corsOption(flag: string | undefined): { cors?: CorsOptions } {
  const entries = (flag ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  if (entries.length === 0) return {};
  if (entries.includes('*')) {
    if (entries.length > 1) throw new CliError('--cors-origin: * allows every origin; give it alone');
    return { cors: { origins: '*' } };
  }
  try {
    return { cors: { origins: entries.map(normaliseOrigin) } };
  } catch (error) {
    throw new CliError(`--cors-origin: ${(error as Error).message.replace(/^allowedOrigins: /, '')}`);
  }
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return port;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function parseMilliseconds(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new InvalidArgumentError('must be a whole number of milliseconds (0 for none)');
  return ms;
}

function parseScale(value: string): number {
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 100) throw new InvalidArgumentError('must be a number between 0 and 100');
  return scale;
}
