import { isIP } from 'node:net';
import { hostnameOf } from '../server/host-guard.js';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { API_KEY_NAME, generateApiKey, ROLE_NAME } from '../auth/api-key.js';
import type { AuthOptions } from '../auth/authenticator.js';
import { issueToken } from '../auth/issue-token.js';
import { newId } from '../util/ids.js';
import { ApiKeyStore } from '../storage/api-keys.js';
import { createEngine, EXAMPLE_COUNTS, type Engine } from '../engine/engine.js';
import { createFileService, DEFAULT_FILES_DIRECTORY } from '../files/file-service.js';
import { isApiError } from '../errors/api-error.js';
import { formatProblems, loadSchema, loadSchemaFiles, type SchemaSource } from '../schema/load-schema.js';
import type { Model } from '../schema/model.js';
import { API_KEYS_CHANNEL } from '../auth/key-revocations.js';
import type { Database } from '../storage/dialect.js';
import { formatPlan, migrate, type MigrateOptions, type MigrateResult } from '../storage/migrate/migrate.js';
import { readAppliedSchema, type AppliedSchema } from '../storage/migrate/applied-schema.js';
import { contractGuard } from '../server/contract/contract-guard.js';
import type { ContractSchema } from '../server/contract/diff-contract.js';
import type { MigrationStep } from '../storage/migrate/schema-spec.js';
import { openDatabase } from '../storage/open-database.js';
import { createServer, shutdown } from '../server/create-server.js';
import type { CorsOptions } from '../server/cors-policy.js';
import { checkPort, describePortError } from './check-port.js';
import { configFileOf, optionsOf, schemaFilesOf, UnusableOptionsError } from './config/command-options.js';
import type { DiglotConfig } from './load-config.js';
import { OPTIONS, type OptionKey } from './config/options.js';
import { CONFIG_FILE } from './config/read-config-file.js';
import { addOptions, type Options } from './config/resolve-options.js';
import { initProject, InitRefusedError, STARTER_SCHEMA_FILE } from './init-project.js';
import { demoSecretPath, loadDemoSecret } from './demo-secret.js';
import { createLogStream } from './log-stream.js';
import { seedDemoPasswords } from './demo-accounts.js';
import { AccountStore } from '../storage/accounts.js';
import { rotateSigningKey } from '../auth/accounts/signing-keys.js';
import { eventsConfigOf } from './load-config.js';
import { registerWebhookCommands } from './webhooks-command.js';
import { CliError } from './cli-error.js';
import { fileStoreOption } from './file-store-option.js';
import { isS3Location } from '../files/s3-location.js';
import { registerDeprecationsCommand } from './deprecations-command.js';



export async function runCli(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name('diglot')
    .description('One GraphQL SDL schema, served as REST and GraphQL from one engine, on SQLite or PostgreSQL.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .showHelpAfterError();

  program.option('-c, --config <file>', `configuration file (env DIGLOT_CONFIG; default ./${CONFIG_FILE} when it exists)`);
  const env = process.env;

  addOptions(program.command('init'), [])
    .description(`start a project in this folder: a commented ${STARTER_SCHEMA_FILE}, ${CONFIG_FILE} with every option, .gitignore lines`)
    .action(() => {
      const result = initProject(process.cwd());
      process.stdout.write(
        [
          `wrote ${result.written.join(', ')}`,
          '',
          'Next: `npx diglot start` migrates, adds demo data and serves REST on http://127.0.0.1:4000, GraphQL at /graphql and docs at /docs;',
          `sign up with POST /auth/sign-up. Edit ${STARTER_SCHEMA_FILE} and restart: the database follows. (\`npx diglot serve\` serves without demo data.)`,
          '',
        ].join('\n'),
      );
    });

  addOptions(program.command('check'), ['schema'])
    .description('validate a schema; prints every problem as file:line:column CODE message')
    .action(async (_flags: unknown, command: Command) => {
      const schema = schemaFilesOf(optionsOf(command, ['schema'], env).schema);
      const model = await loadModel(schema);
      process.stdout.write(`${schema.join(', ')}: ${model.types.length} types, ${model.joinTables.length} join tables, no problems\n`);
    });

  addOptions(program.command('migrate'), ['schema', 'db', 'allowBreaking'])
    .description('bring the database to the schema; refuses changes that break clients of the schema last applied (see --allow-breaking)')
    .option('--dry-run', 'print the plan without applying it', false)
    .option('--allow-destructive', 'allow dropping columns and tables, and narrowing types (data loss; separate from --allow-breaking)', false)
    .action(async (flags: { dryRun: boolean; allowDestructive: boolean }, command: Command) => {
      const options = { ...optionsOf(command, ['schema', 'db', 'allowBreaking'], env), ...flags };
      const schema = await loadContractSchema(schemaFilesOf(options.schema));
      const model = schema.model;
      await withDatabase(options.db, async (db) => {
        const result = await migrateWithProgress(db, model, {
          allowDestructive: options.allowDestructive,
          dryRun: options.dryRun,
          ...guarded(schema, options.allowBreaking),
        });
        process.stdout.write(`${formatPlan(result.steps, result.applied)}\n`);
        if (options.dryRun) process.stdout.write('dry run: nothing applied\n');
      });
    });

  addOptions(program.command('seed'), ['schema', 'db', 'files', 'allowBreaking'])
    .description('load deterministic demo data (1,000 users, 10,000 posts, 20,000 follows, 200 products, 2,000 orders for the example)')
    .option('--scale <factor>', 'multiply every count', parseScale, 1)
    .action(async (flags: { scale: number }, command: Command) => {
      const options = { ...optionsOf(command, ['schema', 'db', 'files', 'allowBreaking'], env), ...flags };
      const schema = await loadContractSchema(schemaFilesOf(options.schema));
      const model = schema.model;
      await withDatabase(options.db, async (db) => {
        await migrate(db, model, { allowDestructive: false, dryRun: false, ...guarded(schema, options.allowBreaking) });
        await seed(createEngine(model, db, { files: createFileService(await fileStoreOption(options.files, env)) }), options.scale);
      });
    });

  program
    .command('diff')
    .description(
      'classify every change between two schemas as breaking, dangerous or safe, for GraphQL and REST clients, each at file:line:column; ' +
        'exits 1 when any change is breaking (for CI), 0 otherwise',
    )
    .requiredOption('--from <schema file | database>', 'the old schema: an SDL file, or a database (SQLite file or postgres:// URL) to read the schema last applied to it')
    .requiredOption('--to <files...>', 'the new schema: its SDL files')
    .option('--json', 'print a JSON object ({ breaking, dangerous, safe, changes: [{ class, styles, message, file, line, column }] }) instead of text', false)
    .action(async (flags: { from: string; to: string[]; json: boolean }) => {
      const { contractChangesJson, diffContract, formatContractChanges } = await import('../server/contract/diff-contract.js');
      const to = await loadContractSchema(flags.to);
      const from = await loadDiffSource(flags.from);
      const changes = await diffContract(from, to);
      process.stdout.write(flags.json ? `${JSON.stringify(contractChangesJson(changes), null, 2)}\n` : formatContractChanges(changes));
      if (changes.some((change) => change.class === 'breaking')) process.exitCode = 1;
    });

  for (const [name, description, seedIfEmpty] of [
    ['serve', 'migrate (non-destructive changes only) and serve REST and GraphQL', false],
    ['start', 'migrate, seed demo data if the database is empty, and serve (what `npm start` runs)', true],
  ] as const) {
    addOptions(program.command(name), SERVE_KEYS)
      .description(description)
      .action(async (_flags: unknown, command: Command) => {
        const options = optionsOf(command, SERVE_KEYS, env);
        const config = eventsConfigOf(configFileOf(command, env), env);
        await serve({ ...options, schema: schemaFilesOf(options.schema) }, config, seedIfEmpty);
      });
  }

  registerWebhookCommands(program, {
    withCommon: (command) => addOptions(command, ['schema', 'db']),
    resolve: (command) => {
      const options = optionsOf(command, ['schema', 'db'], env);
      return { schema: schemaFilesOf(options.schema), db: options.db, config: eventsConfigOf(configFileOf(command, env), env) };
    },
    loadModel,
    withDatabase,
    formatTable,
    fail: (message) => new CliError(message),
  });

  registerDeprecationsCommand(program, {
    withCommon: (command) => addOptions(command, ['schema', 'db']),
    resolve: (command) => {
      const options = optionsOf(command, ['schema', 'db'], env);
      return { schema: schemaFilesOf(options.schema), db: options.db };
    },
    loadModel,
    withDatabase,
    formatTable,
    fail: (message) => new CliError(message),
  });

  const keys = program.command('keys').description('API keys for machines: `Authorization: Bearer <key>`; only their hashes are stored');
  addOptions(keys.command('create'), ['db'])
    .description('make an API key and print it (only this once)')
    .requiredOption('--role <ROLE>', "the key's role (a value of the schema's role enum, such as ADMIN)")
    .requiredOption('--name <name>', 'a name to list and revoke it by (letters, digits, . _ -)')
    .action(async (flags: { role: string; name: string }, command: Command) => {
      const options = { ...optionsOf(command, ['db'], env), ...flags };
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
  addOptions(keys.command('list'), ['db'])
    .description('list the API keys (never the keys themselves)')
    .action(async (_flags: unknown, command: Command) => {
      await withApiKeys(optionsOf(command, ['db'], env).db, async (store) => {
        const rows = (await store.list()).map((key) => [key.id, key.name, key.role, key.createdAt, key.revokedAt === null ? 'active' : `revoked ${key.revokedAt}`]);
        if (rows.length === 0) {
          process.stdout.write('no API keys\n');
          return;
        }
        process.stdout.write(formatTable([['ID', 'NAME', 'ROLE', 'CREATED', 'STATUS'], ...rows]));
      });
    });
  addOptions(keys.command('revoke'), ['db'])
    .description('revoke an API key by id or name; running servers refuse it at once (on SQLite, within a second)')
    .argument('<id|name>')
    .action(async (which: string, _flags: unknown, command: Command) => {
      await withApiKeys(optionsOf(command, ['db'], env).db, async (store, db) => {
        const result = await store.revoke(which, new Date().toISOString());
        if (result === 'not-found') throw new CliError(`no API key has the id or name ${which}`);
        // On PostgreSQL the running servers hear it on their channel, as from the admin API; SQLite's processes watch a generation.
        const revoked = (await store.list()).find((key) => key.id === which || key.name === which);
        if (result === 'revoked' && revoked !== undefined) await db.notify?.(API_KEYS_CHANNEL, revoked.id);
        process.stdout.write(result === 'revoked' ? `revoked ${which}\n` : `${which} was already revoked\n`);
      });
    });

  addOptions(keys.command('rotate-signing'), ['schema', 'db'])
    .description("make a new key for the access tokens Diglot signs (accounts); the previous key still verifies its tokens until they expire")
    .action(async (_flags: unknown, command: Command) => {
      const options = optionsOf(command, ['schema', 'db'], env);
      const model = await loadModel(schemaFilesOf(options.schema));
      if (model.account === undefined) throw new CliError('the schema marks no type @account: Diglot signs no tokens');
      await withDatabase(options.db, async (db) => {
        const store = new AccountStore(db, model);
        if (!(await store.ready())) throw new CliError('this database has no account tables yet: run `diglot migrate` (or `serve`) on it first');
        const kid = await rotateSigningKey(store, Date.now());
        process.stdout.write(`new signing key ${kid}; running servers sign with it within a minute; tokens signed with the previous key stay valid until they expire\n`);
      });
    });

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof UnusableOptionsError || error instanceof InitRefusedError) {
      process.stderr.write(`${error.message.split('\n').map((line) => `diglot: ${line}`).join('\n')}\n`);
    } else {
      process.stderr.write(`diglot: ${describe(error)}\n`);
    }
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

/** The schema files' text and their model: what is recorded in the database and compared with what it recorded. */
async function loadContractSchema(files: readonly string[]): Promise<ContractSchema> {
  const sources: SchemaSource[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: await readFile(file, 'utf8') });
    } catch (error) {
      throw new CliError(`cannot read the schema file ${file}: ${(error as Error).message}`);
    }
  }
  const result = loadSchema(sources);
  if (!result.ok) {
    process.stderr.write(`${formatProblems(result.problems)}\n`);
    throw new CliError(`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in the schema`);
  }
  return { model: result.model, sources };
}

/** `diff --from`: an SDL file, or a database (a SQLite file or a PostgreSQL URL) whose last applied schema is read. */
async function loadDiffSource(from: string): Promise<ContractSchema> {
  if (!/^postgres(?:ql)?:\/\//.test(from)) {
    let head: Buffer;
    try {
      head = (await readFile(from)).subarray(0, 16);
    } catch (error) {
      // Never open (and so create) a database that is not there.
      throw new CliError(`--from ${from}: ${(error as Error).message}`);
    }
    if (head.toString('latin1') !== 'SQLite format 3\u0000') return loadContractSchema([from]);
  }
  let applied: AppliedSchema | undefined;
  await withDatabase(from, async (db) => {
    applied = await readAppliedSchema(db);
  });
  if (applied === undefined) throw new CliError(`--from ${redactTarget(from)}: the database has no schema recorded yet (it is recorded by migrate, serve and start)`);
  const result = loadSchema(applied.sources);
  if (!result.ok) throw new CliError(`--from ${redactTarget(from)}: the schema applied on ${applied.appliedAt} no longer loads: ${formatProblems(result.problems)}`);
  return { model: result.model, sources: applied.sources };
}

/** A database URL as it may be printed (no password). */
function redactTarget(target: string): string {
  return target.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

/** migrate's options that check the schema against the one last applied to the database and record it once applied. */
function guarded(schema: ContractSchema, allowBreaking: boolean): Pick<MigrateOptions, 'guard' | 'record'> {
  return {
    guard: contractGuard(schema, { allowBreaking, warn: (line) => process.stderr.write(`diglot: ${line}\n`) }),
    record: { sources: schema.sources, appliedBy: `diglot ${packageVersion()} on ${hostname()} (pid ${process.pid})` },
  };
}

/** migrate, showing each step on stderr as it starts (loaded only when there is something to migrate). */
async function migrateWithProgress(db: Database, model: Model, options: MigrateOptions): Promise<MigrateResult> {
  const { createMigrateProgress } = await import('./progress.js');
  const progress = createMigrateProgress();
  try {
    return await migrate(db, model, { ...options, onProgress: progress.update });
  } finally {
    progress.stop();
  }
}

async function withDatabase(target: string, work: (db: Database) => Promise<void>): Promise<void> {
  const db = await openDatabase(target);
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

async function withApiKeys(target: string, work: (store: ApiKeyStore, db: Database) => Promise<void>): Promise<void> {
  await withDatabase(target, async (db) => {
    const store = new ApiKeyStore(db);
    if (!(await store.ready())) throw new CliError('this database has no API key table yet: run `diglot migrate` (or `serve`) on it first');
    await work(store, db);
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

/** Every option the server takes: `serve` and `start` read them all. */
const SERVE_KEYS = Object.keys(OPTIONS) as OptionKey[];

type ServeOptions = Omit<Options, 'schema'> & { readonly schema: readonly string[] };

/** The server's `auth` option from the resolved options (the public key read from its file). */
function authOptions(options: ServeOptions): AuthOptions {
  const { jwtSecret, adminKey } = options;
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

/** The name the server is bound to, when it is one (`--host myhost.lan`): requests may name it. Addresses are always allowed (host-guard.ts). */
function boundHostName(host: string): string[] {
  return isIP(host) === 0 && hostnameOf(host) !== undefined ? [host] : [];
}

/** `--cors-origin` (each entry already checked by the option's kind): `*` alone, or a list of origins. */
function corsOption(origins: readonly string[] | undefined): { cors?: CorsOptions } {
  if (origins === undefined || origins.length === 0) return {};
  if (!origins.includes('*')) return { cors: { origins } };
  if (origins.length > 1) throw new CliError('--cors-origin: * allows every origin; give it alone');
  return { cors: { origins: '*' } };
}

/** The user `diglot start`'s member token speaks for: the demo data's ids are "1".."n" (engine/seed). */
const DEMO_USER = '42';
const DEMO_TOKEN_SECONDS = 7 * 24 * 3600;

async function serve(options: ServeOptions, config: DiglotConfig, seedIfEmpty: boolean): Promise<void> {
  const contract = await loadContractSchema(options.schema);
  const model = contract.model;
  // Secure by default: a schema without rules lets anyone change anything, which is for a developer's own machine.
  if (!model.hasRules && !isLoopback(options.host) && !options.allowOpenWrites) {
    throw new CliError(
      `${options.schema.join(', ')} has no @allow rules, so anyone who reaches ${options.host} could change or delete every record. ` +
        'Add rules (docs/rules.md), listen on 127.0.0.1, or pass --allow-open-writes if that is what you want.',
    );
  }
  // `*` with origins beside it is a mistake: checked, like every option, before anything is created.
  corsOption(options.corsOrigin);
  // Nothing is created or migrated until the port is known to be ours.
  await checkPort(options.host, options.port);
  const db = await openDatabase(options.db, { statementTimeoutMs: options.queryTimeout });
  const result = await migrateWithProgress(db, model, { allowDestructive: false, dryRun: false, ...guarded(contract, options.allowBreaking) }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  if (result.steps.length > 0) process.stderr.write(describeMigration(result.steps));
  const files = createFileService(await fileStoreOption(options.files, process.env));
  const engine = createEngine(model, db, {
    files,
    maxCascade: options.maxCascade,
    deprecations: { onError: (error) => process.stderr.write(`diglot: counts of deprecated use not saved yet (kept for the next try): ${describe(error)}\n`) },
  });
  const justSeeded = seedIfEmpty && (await engine.isEmpty());
  if (justSeeded) await seed(engine, 1);
  // Accounts sign with the private key of --signing-key-file (and serve its JWKS), else the JWT secret, else keys kept in the database.
  const signingSecret = authOptions(options).jwtSecret;
  const keyFile = options.signingKeyFile;
  const accounts =
    keyFile !== undefined && keyFile !== '' ? { signingPrivateKey: readSigningKey(keyFile) } : signingSecret === undefined ? {} : { signingSecret };
  const demoAccounts = justSeeded ? await seedDemoPasswords(engine, accounts) : [];
  const production = process.env['NODE_ENV'] === 'production';
  if (options.onlyPersisted && options.persistedDocuments === undefined) throw new CliError('--only-persisted needs --persisted-documents <file>');
  let auth = authOptions(options);
  // The demo (`start`) has credentials ready to use: a secret made on first start and kept, unless the environment gives its own.
  // Beside a local files directory; with files in object storage, in the default directory.
  const secretPath = demoSecretPath(options.db, isS3Location(options.files) ? DEFAULT_FILES_DIRECTORY : options.files);
  const demo = seedIfEmpty ? { path: secretPath, secret: loadDemoSecret(secretPath) } : undefined;
  if (demo !== undefined) auth = { jwtSecret: demo.secret.jwtSecret, adminKey: demo.secret.adminKey, ...auth };
  const logStream = await createLogStream(process.stdout.isTTY);
  const app = await createServer({
    engine,
    auth,
    accounts,
    logger: { level: options.logLevel, ...(logStream === undefined ? {} : { stream: logStream }) },
    exposeInternals: process.env['NODE_ENV'] === 'development',
    requireIfMatch: options.requireIfMatch,
    rateLimits: { anonymous: options.rateLimitAnonymous, member: options.rateLimitMember, exchangeInterval: options.rateLimitExchange / 1000 },
    events: config.events,
    // The admin API shows the schema as written, rules included.
    schemaSources: options.schema.map((file) => ({ file, text: readFileSync(file, 'utf8') })),
    ...corsOption(options.corsOrigin),
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    allowedHosts: [...(options.allowedHosts ?? []), ...boundHostName(options.host)],
    fileAccess: options.filesAccess,
    fileServe: options.filesServe,
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
  await app.listen({ port: options.port, host: options.host }).catch(async (error: unknown) => {
    await app.close();
    await db.close();
    throw new CliError(describePortError(error as NodeJS.ErrnoException, options.port));
  });

  // Graceful shutdown (src/server/shutdown.ts): /readyz fails, then after the drain delay (SIGTERM, from an orchestrator; a person's
  // Ctrl-C stops at once) the server stops accepting, says goodbye to live readers, answers what is in flight, then closes the database.
  // Installed before the banner: whoever waits for it may signal at once.
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    void shutdown(app, { drainDelayMs: signal === 'SIGTERM' ? options.drainDelay : 0, graceMs: options.shutdownTimeout })
      .then((report) => {
        if (report.cut) app.log.warn({ graceMs: options.shutdownTimeout }, 'requests still in flight after the shutdown timeout were cut off');
        return db.close();
      })
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`diglot: shutdown failed: ${describe(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : options.port;
  const origin = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const first = model.types[0];
  const credentials = demo === undefined ? [] : await demoCredentials(auth, demo.path, options.adminKey !== undefined);
  // On stderr, with the other messages for people: stdout carries only the log, one JSON object a line when piped.
  process.stderr.write(
    [
      '',
      `Diglot is serving ${options.schema.join(', ')} on ${db.dialect === 'sqlite' ? `SQLite (${options.db})` : 'PostgreSQL'}`,
      `  REST API   ${origin}/${first === undefined ? '' : `${first.path}?limit=5`}`,
      `  GraphQL    ${origin}/graphql`,
      `  Docs       ${origin}/docs`,
      `  OpenAPI    ${origin}/openapi.json`,
      `  Health     ${origin}/healthz (alive), ${origin}/readyz (ready for requests)`,
      `  Files      ${files.store.location}`,
      ...credentials,
      ...demoAccounts,
      '',
    ].join('\n'),
  );
}

/** What serve's migration did: each step of a small change (a new database's dozens of creates as a count). */
function describeMigration(steps: readonly MigrationStep[]): string {
  const count = `migrated: ${steps.length} step${steps.length === 1 ? '' : 's'} applied`;
  if (steps.length > 8) return `${count}\n`;
  return `${count}\n${steps.map((step) => `  ${step.description}\n`).join('')}`;
}

/** The banner's lines for `start`: an admin key and a member token, ready to send as `Authorization: Bearer …`. */
async function demoCredentials(auth: AuthOptions, secretPath: string, ownAdminKey: boolean): Promise<string[]> {
  if (auth.jwtSecret === undefined) return [];
  const claims = { sub: DEMO_USER, role: 'MEMBER', ...(auth.issuer === undefined ? {} : { iss: auth.issuer }), ...(auth.audience === undefined ? {} : { aud: auth.audience }) };
  const token = await issueToken(auth.jwtSecret, claims, DEMO_TOKEN_SECONDS);
  return [
    // serve makes up no secret, so it refuses these: say so before someone tries.
    'Send as Authorization: Bearer <credential> (accepted by `start`, which keeps the secret; `serve` does not make one):',
    ownAdminKey ? '  Admin key  the one you configured (DIGLOT_ADMIN_KEY)' : `  Admin key  ${auth.adminKey ?? ''}   (kept in ${secretPath})`,
    `  Member     ${token}   (user ${DEMO_USER}, role MEMBER, valid 7 days)`,
  ];
}

/** The version in package.json, two folders up from both src/cli and dist/cli. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

function describe(error: unknown): string {
  if (isApiError(error)) return `${error.code}: ${error.detail ?? error.title}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

function readSigningKey(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(`--signing-key-file ${path}: ${(error as Error).message}`);
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function parseScale(value: string): number {
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0 || scale > 100) throw new InvalidArgumentError('must be a number between 0 and 100');
  return scale;
}
