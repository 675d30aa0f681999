/**
 * Options of the GraphQL front-end, validated once and frozen by
 * `resolveGraphqlOptions`. Every limit has a safe default.
 */

export interface GraphqlLimits {
  /** Lexical tokens in a document (the parser stops counting there). */
  readonly maxTokens: number;
  /** Aliased fields in an operation, counting each fragment use. */
  readonly maxAliases: number;
  /** Fields at the root of an operation: each is one statement. */
  readonly maxRootFields: number;
  /** Directive uses in an operation. */
  readonly maxDirectives: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = Object.freeze({
  maxTokens: 2000,
  maxAliases: 30,
  maxRootFields: 20,
  maxDirectives: 50,
});

export interface PersistedDocumentsOptions {
  /** JSON: `{ "<sha256>": "<document>" }`, or an Apollo persisted-query manifest. */
  readonly file: string;
  /** Refuse every document that is not in the file (trusted documents). */
  readonly onlyPersisted: boolean;
}

export interface GraphqlOptions {
  readonly limits?: Partial<GraphqlLimits>;
  readonly persistedDocuments?: PersistedDocumentsOptions;
  /** Drop "Did you mean …?" from messages, so the schema cannot be guessed field by field (production). */
  readonly hideSuggestions?: boolean;
  /** Serve GraphiQL to browsers at GET /graphql (default true). */
  readonly graphiql?: boolean;
  /** Automatic persisted queries remembered in each process (LRU, default 1000). */
  readonly apqCacheSize?: number;
  /** Automatic persisted queries kept in the database for every instance (default 10,000): past it the oldest registered are deleted, and their clients register them again on a miss. */
  readonly apqStoredLimit?: number;
  /** Largest automatic persisted query kept in the database, in UTF-8 bytes (default 16 KiB): a larger one runs, and is remembered by the process that saw it only. */
  readonly apqMaxDocumentBytes?: number;
  /** Parsed and validated documents remembered (LRU, default 1000). */
  readonly documentCacheSize?: number;
  /** Show internal error messages to clients (development only). */
  readonly exposeInternals?: boolean;
}

export interface ResolvedGraphqlOptions {
  readonly limits: GraphqlLimits;
  readonly persistedDocuments: PersistedDocumentsOptions | undefined;
  readonly hideSuggestions: boolean;
  readonly graphiql: boolean;
  readonly apqCacheSize: number;
  readonly apqStoredLimit: number;
  readonly apqMaxDocumentBytes: number;
  readonly documentCacheSize: number;
  readonly exposeInternals: boolean;
}

const OPTION_KEYS = ['limits', 'persistedDocuments', 'hideSuggestions', 'graphiql', 'apqCacheSize', 'apqStoredLimit', 'apqMaxDocumentBytes', 'documentCacheSize', 'exposeInternals'];

export function resolveGraphqlOptions(options: GraphqlOptions = {}): ResolvedGraphqlOptions {
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) throw new Error(`Unknown GraphQL option "${key}"; known: ${OPTION_KEYS.join(', ')}`);
  }
  const limits: Record<string, number> = { ...DEFAULT_GRAPHQL_LIMITS };
  for (const [key, value] of Object.entries(options.limits ?? {})) {
    if (!(key in DEFAULT_GRAPHQL_LIMITS)) throw new Error(`Unknown GraphQL limit "${key}"; known: ${Object.keys(DEFAULT_GRAPHQL_LIMITS).join(', ')}`);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new Error(`GraphQL limit ${key} must be a positive integer`);
    limits[key] = value;
  }
  return Object.freeze({
    limits: Object.freeze(limits as unknown as GraphqlLimits),
    persistedDocuments: options.persistedDocuments,
    hideSuggestions: options.hideSuggestions === true,
    graphiql: options.graphiql !== false,
    apqCacheSize: positive(options.apqCacheSize, 1000, 'apqCacheSize'),
    apqStoredLimit: positive(options.apqStoredLimit, 10_000, 'apqStoredLimit'),
    apqMaxDocumentBytes: positive(options.apqMaxDocumentBytes, 16 * 1024, 'apqMaxDocumentBytes'),
    documentCacheSize: positive(options.documentCacheSize, 1000, 'documentCacheSize'),
    exposeInternals: options.exposeInternals === true,
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`GraphQL option ${name} must be a positive integer`);
  return value;
}
