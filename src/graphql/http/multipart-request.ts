import type { Multipart } from '@fastify/multipart';
import type { ReceiveUpload } from '../../engine/engine.js';
import { ApiError } from '../../errors/api-error.js';
import { multipartParts, receivePart } from '../../files/multipart-parts.js';
import { hasPreflightHeader } from '../../util/preflight-header.js';
import { paramsFromJson, type GraphqlParams } from './graphql-params.js';

/**
 * The GraphQL multipart request spec
 * (https://github.com/jaydenseric/graphql-multipart-request-spec), v2:
 *
 *   operations  {"query": "mutation ($file: Upload!) { … }", "variables": {"file": null}}
 *   map         {"0": ["variables.file"]}
 *   0           the file
 *
 * Parts come in that order. `beforeFiles` hears the operation once `map` is
 * read, before any file (it throws to refuse them). Each file is then
 * streamed into the store as it arrives (checked by content; `receive`) and
 * put where the map says, replacing the `null` placeholder. Batched
 * operations are not supported.
 */
export async function paramsFromMultipart(
  parts: AsyncIterable<Multipart>,
  receive: ReceiveUpload,
  beforeFiles: (params: GraphqlParams) => Promise<void>,
): Promise<GraphqlParams> {
  let operations: Record<string, unknown> | undefined;
  let map: Map<string, string[][]> | undefined;
  const received = new Set<string>();
  for await (const part of multipartParts(parts)) {
    if (operations === undefined) {
      operations = jsonPart(part, 'operations');
      if (Array.isArray(operations)) throw new ApiError('BAD_REQUEST', { detail: 'Batched operations are not supported: send one operation per request' });
      continue;
    }
    if (map === undefined) {
      map = readMap(jsonPart(part, 'map'), operations);
      // The operation is known: may it take files at all? Asked before the first file is read.
      if (map.size > 0) await beforeFiles(paramsFromJson(operations));
      continue;
    }
    const paths = map.get(part.fieldname);
    if (part.type !== 'file' || paths === undefined || received.has(part.fieldname)) {
      throw new ApiError('BAD_REQUEST', {
        detail: `Unexpected part "${part.fieldname}": after operations and map, send each file named in the map once`,
      });
    }
    received.add(part.fieldname);
    const upload = await receivePart(receive, part.file);
    for (const path of paths) place(operations, path, upload);
  }
  if (operations === undefined || map === undefined) {
    throw new ApiError('BAD_REQUEST', { detail: 'A multipart GraphQL request starts with an "operations" part and a "map" part' });
  }
  const missing = [...map.keys()].filter((name) => !received.has(name));
  if (missing.length > 0) throw new ApiError('BAD_REQUEST', { detail: `The map names files that were not sent: ${missing.join(', ')}` });
  return paramsFromJson(operations);
}

/**
 * CSRF protection for uploads: a multipart request must carry a header that
 * forces a preflight (see util/preflight-header.ts), even one that is not
 * cross-site, as Apollo Server and GraphQL Yoga require.
 */
export function checkPreflightHeader(headers: Readonly<Record<string, string | string[] | undefined>>): void {
  if (!hasPreflightHeader(headers)) {
    throw new ApiError('UPLOAD_PREFLIGHT_REQUIRED', {
      detail: 'A multipart request must carry a non-empty GraphQL-Require-Preflight (or Apollo-Require-Preflight) header, so it cannot be forged cross-site',
      extensions: { headers: ['GraphQL-Require-Preflight', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name'] },
    });
  }
}

/** A JSON part (`operations` or `map`), sent as text or as application/json. */
function jsonPart(part: Multipart, name: string): Record<string, unknown> {
  if (part.type !== 'field' || part.fieldname !== name) {
    throw new ApiError('BAD_REQUEST', { detail: `Expected the "${name}" part here (got ${part.type === 'file' ? 'a file' : 'a text part'} named "${part.fieldname}")` });
  }
  if (part.valueTruncated) throw new ApiError('BODY_TOO_LARGE', { detail: `The ${name} part is longer than this server accepts` });
  let value: unknown = part.value;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      throw new ApiError('MALFORMED_JSON', { detail: `The ${name} part is not valid JSON: ${(error as Error).message}` });
    }
  }
  if (typeof value !== 'object' || value === null) throw new ApiError('BAD_REQUEST', { detail: `The ${name} part must be a JSON object` });
  return value as Record<string, unknown>;
}

function readMap(raw: Record<string, unknown>, operations: Record<string, unknown>): Map<string, string[][]> {
  const map = new Map<string, string[][]>();
  for (const [name, paths] of Object.entries(raw)) {
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((path): path is string => typeof path === 'string')) {
      throw new ApiError('BAD_REQUEST', { detail: `map["${name}"] must be a non-empty list of paths such as "variables.file"` });
    }
    const split = paths.map((path) => path.split('.'));
    for (const [i, path] of split.entries()) {
      if (path[0] !== 'variables' || path.length < 2) {
        throw new ApiError('BAD_REQUEST', { detail: `map["${name}"] path "${paths[i] ?? ''}" must point into variables (variables.<name>…)` });
      }
      // Checked now, before any file is read: a wrong path fails fast.
      place(operations, path, undefined);
    }
    map.set(name, split);
  }
  return map;
}

/** Puts `value` at `path` in `operations`, where the client left `null`; with `value` undefined, only checks. */
function place(operations: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let container: unknown = operations;
  for (const [i, segment] of path.entries()) {
    const last = i === path.length - 1;
    // `__proto__` and friends are never data: writing there would change an object's prototype.
    const unsafe = segment === '__proto__' || segment === 'constructor' || segment === 'prototype';
    if (unsafe || typeof container !== 'object' || container === null || !Object.hasOwn(container, segment)) {
      throw new ApiError('BAD_REQUEST', { detail: `The map path "${path.join('.')}" does not exist in operations (put null where each file goes)` });
    }
    const record = container as Record<string, unknown>;
    if (last) {
      if (value === undefined) {
        if (record[segment] !== null) throw new ApiError('BAD_REQUEST', { detail: `operations has no null at "${path.join('.')}" for the file to replace` });
      } else {
        record[segment] = value;
      }
      return;
    }
    container = record[segment];
  }
}
