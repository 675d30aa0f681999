/**
 * Diglot as a library: load a schema, open a database, migrate, and serve
 * REST and GraphQL from one engine — what `diglot serve` does, for programs
 * that embed it (tests, custom servers, serverless handlers).
 */
export { loadSchema, loadSchemaFiles, formatProblems, type LoadSchemaResult, type SchemaProblem } from './schema/load-schema.js';
export type { Model, ResourceType, Field } from './schema/model.js';
export { openDatabase, type OpenDatabaseOptions } from './storage/open-database.js';
export type { Database } from './storage/dialect.js';
export { migrate, formatPlan, type MigrateOptions, type MigrateResult } from './storage/migrate/migrate.js';
export { createEngine, EXAMPLE_COUNTS, type Engine, type EngineOptions, type SeedOptions } from './engine/engine.js';
export { createFileService, type FileService, type FileServiceOptions } from './files/file-service.js';
export { createLocalFileStore } from './files/local-file-store.js';
export type { FileStore, StagedFile, StoredFile } from './files/file-store.js';
export { createServer, type ServerOptions } from './server/create-server.js';
export { createAuthenticator, type AuthOptions, type Authenticator, type AuthenticatorOptions } from './auth/authenticator.js';
export { principalOf } from './auth/request-principal.js';
export type { Principal } from './plan/principal.js';
export { ApiError } from './errors/api-error.js';
export { ERROR_REGISTRY, type ErrorCode } from './errors/registry.js';
