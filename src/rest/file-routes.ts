import type { Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine, WritePrecondition } from '../engine/engine.js';
import { ifNoneMatchMatches } from '../engine/validators.js';
import { ApiError } from '../errors/api-error.js';
import { IMMUTABLE, parseFileKey } from '../files/file-key.js';
import type { FileService } from '../files/file-service.js';
import { FORMAT_INFO } from '../files/image-format.js';
import { chooseVariantFormat, variantWidths } from '../files/image-variants.js';
import { multipartParts, receivePart } from '../files/multipart-parts.js';
import { servedFileHeaders } from '../files/served-file-headers.js';
import { contextOf, principalOf } from '../auth/request-principal.js';
import { checkWriteRights, planUpdate } from '../plan/build-write.js';
import { validateInput } from '../plan/validate-input.js';
import type { FileField, ResourceType } from '../schema/model.js';
import { header } from '../util/http-request.js';
import { addVary } from '../util/vary.js';
import { markDeprecated } from './deprecation-headers.js';
import { methodNotAllowed } from './route-helpers.js';
import { typeAlias } from '../schema/renamed.js';

export interface FileRoutesOptions {
  readonly engine: Engine;
  /** Sends the record as GET /<type>/<id> would, with its ETag. */
  readonly sendRecord: (type: ResourceType, id: string, request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The write's precondition from If-Match / If-Unmodified-Since, as for PUT and PATCH. */
  readonly precondition: (type: ResourceType, id: string, request: FastifyRequest) => WritePrecondition | undefined;
  /** Who may fetch `/files/…`: anyone with the URL (`public`, the default), or only callers who may read a record holding the file (`readers`). */
  readonly access?: FileAccess;
  /** How an original leaves a store that can presign URLs: through this server (`stream`, the default) or by a redirect. */
  readonly serve?: FileServe;
}

/** See docs/files.md#who-may-fetch-a-file. */
export type FileAccess = 'public' | 'readers';

/** See docs/object-storage.md#serving. */
export type FileServe = 'stream' | 'redirect';

/** How long a presigned URL of a redirect stays valid, in seconds: long enough to follow it, short enough that a leaked one soon dies. */
const PRESIGNED_SECONDS = 300;

/** Revalidated on every use (the check runs again, so access ends when the record is hidden), kept by the caller's browser only. */
const READERS_ONLY = 'private, no-cache';

/**
 * Files over REST (registered only when the engine has a file store):
 *
 *   PUT    /<type>/<id>/<fileField>   multipart/form-data with a part `file` → 200, the record
 *   DELETE /<type>/<id>/<fileField>   → 204; the file is deleted unless another record shares it
 *   GET    /files/<key>               the original, as uploaded
 *   GET    /files/<key>/<width>       the original resized to <width> px wide (format by Accept)
 *
 * plus `multipart/form-data` bodies on POST /<type> and PUT /<type>/<id>
 * (see record-input.ts). File URLs are content addresses: they are served
 * with `Cache-Control: public, max-age=31536000, immutable` and a strong ETag.
 */
export function registerFileRoutes(app: FastifyInstance, options: FileRoutesOptions): void {
  const files = options.engine.files;
  const widths = variantWidths(options.engine.model);
  // No store, or a schema without file fields: nothing to upload or serve. (The
  // server registers the multipart parser, @fastify/multipart, with the store.)
  if (files === undefined || widths.length === 0) return;

  // A renamed type or file field (`@renamed(from:)`) keeps answering at its old path too; the planner reports the old name's use.
  for (const type of options.engine.model.types) {
    for (const named of [type, typeAlias(type)]) {
      if (named === undefined) continue;
      for (const field of named.fields) {
        if (field.kind !== 'file') continue;
        for (const name of field.renamedFrom === undefined ? [field.name] : [field.name, field.renamedFrom]) {
          const url = `/${named.path}/:id/${name}`;
          app.put(url, (request, reply) => putFile(options, named, field, request, reply));
          app.delete(url, (request, reply) => deleteFile(options, named, field, request, reply));
          methodNotAllowed(app, url, ['PUT', 'DELETE']);
        }
      }
    }
  }

  for (const method of ['GET', 'HEAD'] as const) {
    // HEAD is its own route so that it never opens (or reads) the file.
    const serve: ServeOptions = { files, engine: options.engine, readersOnly: options.access === 'readers', redirect: options.serve === 'redirect' };
    app.route({ method, url: '/files/:key', exposeHeadRoute: false, handler: (request, reply) => sendOriginal(serve, request, reply) });
    app.route({ method, url: '/files/:key/:width', exposeHeadRoute: false, handler: (request, reply) => sendVariant(serve, widths, request, reply) });
  }
  methodNotAllowed(app, '/files/:key', ['GET', 'HEAD']);
  methodNotAllowed(app, '/files/:key/:width', ['GET', 'HEAD']);
}

async function putFile(options: FileRoutesOptions, type: ResourceType, field: FileField, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { engine } = options;
  const id = (request.params as { id: string }).id;
  if (!request.isMultipart()) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', {
      detail: `Send the file as multipart/form-data, in a part named "file"`,
      extensions: { accept: ['multipart/form-data'] },
    });
  }
  // The rules before the body is read: a caller who may never write this field sends no file to the store.
  checkWriteRights(engine.model, type.name, 'update', principalOf(request), [field.name]);
  // And the rules on the stored record (may they see it, change it?): a stranger's file is not received either.
  await engine.precheckWrite(contextOf(request), planUpdate(engine.model, type.name, id, {}, principalOf(request)));
  await engine.withUploads(contextOf(request), async (receive) => {
    let value: unknown;
    for await (const part of multipartParts<Multipart>(request.parts())) {
      if (part.type !== 'file' || part.fieldname !== 'file' || value !== undefined) {
        throw new ApiError('BAD_REQUEST', { detail: `Send exactly one part, a file named "file" (got ${part.type === 'file' ? 'a file' : 'a text part'} named "${part.fieldname}")` });
      }
      value = await receivePart(receive, part.file);
    }
    if (value === undefined) throw new ApiError('FILE_MISSING', { detail: 'The form has no part named "file"' });
    const values = validateInput(engine.model, type, { [field.name]: value }, 'patch');
    const plan = planUpdate(engine.model, type.name, id, values, principalOf(request));
    markDeprecated(options, reply, plan.deprecations);
    await engine.write(contextOf(request), plan, options.precondition(type, id, request));
  });
  await options.sendRecord(type, id, request, reply);
}

async function deleteFile(options: FileRoutesOptions, type: ResourceType, field: FileField, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { engine } = options;
  const id = (request.params as { id: string }).id;
  checkWriteRights(engine.model, type.name, 'update', principalOf(request), [field.name]);
  const values = validateInput(engine.model, type, { [field.name]: null }, 'patch');
  const plan = planUpdate(engine.model, type.name, id, values, principalOf(request));
  markDeprecated(options, reply, plan.deprecations);
  await engine.write(contextOf(request), plan, options.precondition(type, id, request));
  reply.code(204).send();
}

interface ServeOptions {
  readonly files: FileService;
  readonly engine: Engine;
  readonly readersOnly: boolean;
  readonly redirect: boolean;
}

/**
 * With `readers`, a file is served only to a caller who may read a record
 * holding it (one statement); anyone else gets the 404 of a missing file,
 * before any validator is compared, so not even a 304 tells it exists.
 */
async function assertReadable(serve: ServeOptions, key: string, request: FastifyRequest): Promise<void> {
  if (serve.readersOnly && !(await serve.engine.mayReadFile(key, contextOf(request)))) throw fileNotFound(key);
}

// These return the reply: an async handler must, when the body is a stream Fastify sends after it returns.
async function sendOriginal(serve: ServeOptions, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { key } = request.params as { key: string };
  const parsed = parseFileKey(key);
  if (parsed !== undefined) await assertReadable(serve, key, request);
  const file = parsed === undefined ? undefined : await serve.files.open(key);
  if (parsed === undefined || file === undefined) throw fileNotFound(key);
  // The key is the sha256 of the bytes: the strongest validator there is.
  const etag = `"${parsed.sha256}"`;
  const mediaType = FORMAT_INFO[parsed.format].mediaType;
  if (serve.redirect && serve.files.store.presignedUrl !== undefined && !ifNoneMatchMatches(header(request, 'if-none-match'), etag)) {
    // After the access check: the URL is the permission, valid for minutes, so the redirect itself is never shared or kept.
    const cacheControl = serve.readersOnly ? READERS_ONLY : IMMUTABLE;
    const url = await serve.files.store.presignedUrl(key, { expiresIn: PRESIGNED_SECONDS, mediaType, filename: key, cacheControl });
    if (serve.readersOnly) addVary(reply, 'Authorization');
    return reply.code(302).header('location', url).header('cache-control', 'private, no-store').send();
  }
  fileHeaders(serve, reply, etag, key, mediaType);
  if (ifNoneMatchMatches(header(request, 'if-none-match'), etag)) return reply.code(304).send();
  reply.header('content-length', String(file.size));
  return request.method === 'HEAD' ? reply.send() : reply.send(file.stream());
}

async function sendVariant(serve: ServeOptions, widths: readonly number[], request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { key, width: text } = request.params as { key: string; width: string };
  const parsed = parseFileKey(key);
  const width = /^[1-9][0-9]{0,4}$/.test(text) ? Number(text) : undefined;
  if (width === undefined || !widths.includes(width)) {
    throw new ApiError('NOT_FOUND', {
      detail: `No variant ${text} of ${key}: widths are ${widths.join(', ')} (the URLs in records are always one of them)`,
      extensions: { sizes: widths },
    });
  }
  if (parsed !== undefined) await assertReadable(serve, key, request);
  const format = parsed === undefined ? undefined : chooseVariantFormat(header(request, 'accept'), parsed.format, width);
  const variant = parsed === undefined || format === undefined ? undefined : await serve.files.variant(key, width, format);
  if (parsed === undefined || variant === undefined) throw fileNotFound(key);
  // Named after the original's key and the width, with the extension of the format served (which Accept chose).
  fileHeaders(serve, reply, variant.etag, `${parsed.sha256}-${width}.${FORMAT_INFO[variant.format].extension}`, FORMAT_INFO[variant.format].mediaType);
  // The format depends on Accept: shared caches must key on it (RFC 9110 §12.5.5).
  addVary(reply, 'Accept');
  if (ifNoneMatchMatches(header(request, 'if-none-match'), variant.etag)) return reply.code(304).send();
  reply.header('content-length', String(variant.data.length));
  return request.method === 'HEAD' ? reply.send() : reply.send(variant.data);
}

function fileHeaders(serve: ServeOptions, reply: FastifyReply, etag: string, filename: string, mediaType: string): void {
  reply.header('etag', etag).header('cache-control', serve.readersOnly ? READERS_ONLY : IMMUTABLE).headers(servedFileHeaders(filename, mediaType));
  // Who may have it depends on the credentials (RFC 9110 §12.5.5).
  if (serve.readersOnly) addVary(reply, 'Authorization');
}

function fileNotFound(key: string): ApiError {
  return new ApiError('NOT_FOUND', { detail: `No stored file ${JSON.stringify(key.slice(0, 100))}` });
}


