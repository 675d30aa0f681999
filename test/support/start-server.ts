import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createFileService, type FileService, type FileServiceOptions } from '../../src/files/file-service.js';
import { createEngine, type Engine, type EngineOptions, type SeedOptions } from '../../src/engine/engine.js';
import { loadSchema, loadSchemaFiles } from '../../src/schema/load-schema.js';
import { withoutDirectives } from '../../src/schema/without-directives.js';
import type { Model } from '../../src/schema/model.js';
import type { Database } from '../../src/storage/dialect.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { createServer, type ServerOptions } from '../../src/server/create-server.js';

export const EXAMPLE_SCHEMA = new URL('../../examples/social/schema.graphql', import.meta.url).pathname;

let exampleModel: Promise<Model> | undefined;
let openExampleModel: Model | undefined;

/** The example schema as shipped, rules included. */
export function loadExampleModel(): Promise<Model> {
  exampleModel ??= loadSchemaFiles([EXAMPLE_SCHEMA]).then((result) => {
    if (!result.ok) throw new Error(`example schema does not load: ${JSON.stringify(result.problems)}`);
    return result.model;
  });
  return exampleModel;
}

/** The example schema's text without its `@allow` rules and its `@account`. */
export function openExampleSdl(): string {
  return withoutDirectives(readFileSync(EXAMPLE_SCHEMA, 'utf8'), ['@allow(', '@account(']);
}

/**
 * The example schema without its `@allow` rules and its `@account`: an open
 * schema, which serves everyone everything (as a schema without rules does).
 * The tests of the engine, the front-ends, caching and files use it, so they
 * prove those apart from permissions; the permission and account tests use
 * the example as shipped.
 */
export function loadOpenExampleModel(): Model {
  if (openExampleModel === undefined) {
    const result = loadSchema([{ file: EXAMPLE_SCHEMA, text: openExampleSdl() }]);
    if (!result.ok) throw new Error(`open example schema does not load: ${JSON.stringify(result.problems)}`);
    openExampleModel = result.model;
  }
  return openExampleModel;
}

/** Small, deterministic demo data: enough for pages, skew and relations. */
export const SMALL_SEED: SeedOptions = {
  counts: { User: 60, Post: 200, Product: 20, Order: 30, OrderItem: 60 },
  linksPerRecord: 4,
};

export interface TestServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly engine: Engine;
  readonly db: Database;
  readonly model: Model;
  /** The file store (a temporary directory of this server's own, removed on close), unless `files: false`. */
  readonly files: FileService | undefined;
  readonly filesDir: string | undefined;
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly seed?: SeedOptions | false;
  readonly server?: Partial<ServerOptions>;
  /** File store options (its directory defaults to a fresh temporary one; `store` replaces it), or false for an engine without files. */
  readonly files?: FileServiceOptions | false;
  readonly engine?: Omit<EngineOptions, 'files'>;
  /** Serve the example with its permission rules (default: without, an open schema). */
  readonly rules?: boolean;
  /** Serve this model instead of the example. */
  readonly model?: Model;
}

/** The example served over a real socket on an ephemeral port, on the given database. */
export async function startServer(open: () => Promise<Database>, options: StartServerOptions = {}): Promise<TestServer> {
  const model = options.model ?? (options.rules === true ? await loadExampleModel() : loadOpenExampleModel());
  const db = await open();
  await migrate(db, model, { allowDestructive: false, dryRun: false });
  const filesDir = options.files === false ? undefined : (options.files?.directory ?? mkdtempSync(join(tmpdir(), 'diglot-files-')));
  const files = options.files === false ? undefined : createFileService({ ...options.files, directory: filesDir });
  const engine = createEngine(model, db, { ...options.engine, files });
  if (options.seed !== false) await engine.seed(options.seed ?? SMALL_SEED);
  const app = await createServer({ engine, logger: false, ...options.server });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    app,
    engine,
    db,
    model,
    files,
    filesDir,
    close: async () => {
      await app.close();
      await db.close();
      if (filesDir !== undefined && options.files !== false && options.files?.directory === undefined) rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

/**
 * `count` servers on one database, as the instances of one deployment:
 * started before the block's tests (the first migrates and seeds, the
 * others only migrate nothing) and closed after them, the last first. The
 * array is filled once they are up.
 */
export function useInstances(open: () => Promise<Database>, count: number, options: StartServerOptions = {}): readonly TestServer[] {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    for (let i = 0; i < count; i++) servers.push(await startServer(open, i === 0 ? options : { ...options, seed: false }));
  });
  afterAll(async () => {
    for (const server of servers.splice(0).reverse()) await server.close();
  });
  return servers;
}
