import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiError } from '../../errors/api-error.js';
import type { AutomaticQueries } from '../../engine/automatic-queries.js';
import type { ErrorLog } from '../response/format-error.js';
import type { GraphqlParams } from './graphql-params.js';

/**
 * Where the document text of a request comes from:
 *
 * - `query` as sent;
 * - a trusted document, by id (`?id=<sha256>`), loaded from a file at start;
 * - an automatic persisted query (Apollo's protocol): the client sends
 *   `extensions.persistedQuery.sha256Hash`, alone first; on
 *   `PersistedQueryNotFound` it sends the text with the hash, which is
 *   verified and registered (in memory and, once, in the database every
 *   instance reads: engine/automatic-queries.ts) so the next request,
 *   typically a cacheable GET, can be the hash alone, on any instance.
 *
 * With `onlyPersisted`, only trusted documents run.
 */
export interface DocumentSource {
  /** `log` hears of a registered document the database could not store for the other instances (the request runs on). */
  resolve(params: GraphqlParams, log: ErrorLog): Promise<{ readonly text: string; readonly persisted: boolean }>;
  /** Trusted documents by id, to validate at start-up. */
  readonly trusted: ReadonlyMap<string, string>;
}

export function createDocumentSource(trusted: ReadonlyMap<string, string>, onlyPersisted: boolean, automatic: AutomaticQueries): DocumentSource {
  return {
    trusted,
    async resolve(params, log) {
      const apq = persistedQueryOf(params.extensions);
      if (params.documentId !== undefined) {
        const text = trusted.get(normalizeId(params.documentId));
        if (text === undefined) throw new ApiError('PERSISTED_QUERY_NOT_FOUND', { detail: `No trusted document has id ${params.documentId}` });
        return { text, persisted: true };
      }
      if (params.query !== undefined) {
        // Plain text needs no hash here (the handler hashes each document once, if at all): only the protocols below do.
        if (apq === undefined && !onlyPersisted) return { text: params.query, persisted: false };
        const hash = sha256(params.query);
        if (apq !== undefined && apq !== hash) {
          throw new ApiError('BAD_REQUEST', { detail: 'provided sha does not match query: extensions.persistedQuery.sha256Hash must be the sha256 of the query text' });
        }
        if (onlyPersisted) {
          if (!trusted.has(hash)) throw new ApiError('PERSISTED_QUERY_NOT_FOUND', { detail: 'This server runs only trusted documents: send the id of one' });
          return { text: params.query, persisted: true };
        }
        if (apq !== undefined) {
          const failed = await automatic.register(hash, params.query);
          if (failed !== undefined) log.error({ err: failed }, 'an automatic persisted query could not be stored for the other instances');
        }
        return { text: params.query, persisted: apq !== undefined };
      }
      if (apq !== undefined) {
        const text = trusted.get(apq) ?? (onlyPersisted ? undefined : await automatic.find(apq));
        // Apollo clients recognise this exact message and retry with the text.
        if (text === undefined) throw new ApiError('PERSISTED_QUERY_NOT_FOUND', { detail: 'PersistedQueryNotFound' });
        return { text, persisted: true };
      }
      throw new ApiError('BAD_REQUEST', { detail: 'Missing query: send the GraphQL document as "query" (or a persisted document id)' });
    },
  };
}

/** The hash of `extensions.persistedQuery`, checked for the protocol's shape. */
function persistedQueryOf(extensions: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = extensions?.['persistedQuery'];
  if (value === undefined || value === null) return undefined;
  const { version, sha256Hash } = value as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1) throw new ApiError('BAD_REQUEST', { detail: 'Unsupported persisted query version: only version 1 is known' });
  if (typeof sha256Hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(sha256Hash)) {
    throw new ApiError('BAD_REQUEST', { detail: 'extensions.persistedQuery.sha256Hash must be 64 hex digits' });
  }
  return sha256Hash.toLowerCase();
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** `sha256:<hex>` (the trusted-documents convention) and bare hex are the same id. */
function normalizeId(id: string): string {
  const bare = id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
  return /^[0-9a-fA-F]{64}$/.test(bare) ? bare.toLowerCase() : bare;
}

/**
 * Trusted documents from a JSON file: either a map `{ "<id>": "<document>" }`
 * or an Apollo persisted-query manifest (`{ format:
 * "apollo-persisted-query-manifest", operations: [{ id, body }] }`). An id
 * that is a sha256 must be the hash of its document.
 */
export function loadPersistedDocuments(file: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read the persisted documents file ${file}: ${(error as Error).message}`, { cause: error });
  }
  const entries: [string, unknown][] = [];
  if (isRecord(parsed) && parsed['format'] === 'apollo-persisted-query-manifest' && Array.isArray(parsed['operations'])) {
    for (const operation of parsed['operations']) {
      if (!isRecord(operation)) throw new Error(`${file}: every operation of the manifest must be an object with id and body`);
      entries.push([String(operation['id']), operation['body']]);
    }
  } else if (isRecord(parsed)) {
    entries.push(...Object.entries(parsed));
  } else {
    throw new Error(`${file}: expected a JSON object mapping ids to documents, or an Apollo persisted-query manifest`);
  }
  const documents = new Map<string, string>();
  for (const [rawId, text] of entries) {
    if (typeof text !== 'string') throw new Error(`${file}: the document of ${rawId} is not a string`);
    const id = normalizeId(rawId);
    if (/^[0-9a-f]{64}$/.test(id) && sha256(text) !== id) throw new Error(`${file}: id ${rawId} is not the sha256 of its document`);
    documents.set(id, text);
  }
  return documents;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
