import type { Multipart } from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Engine, ReceiveUpload } from '../engine/engine.js';
import { ApiError } from '../errors/api-error.js';
import { multipartParts, receivePart } from '../files/multipart-parts.js';
import { validateInput, type InputMode } from '../plan/validate-input.js';
import { checkWriteRights } from '../plan/build-write.js';
import { contextOf, principalOf } from '../auth/request-principal.js';
import type { WriteValues } from '../plan/write-plan.js';
import type { ResourceType } from '../schema/model.js';
import { resolveField } from '../schema/renamed.js';

/**
 * A record body for POST and PUT, as JSON or as `multipart/form-data`, and
 * the write that uses it. In a form, each field is a part named after it:
 * text parts are read as URL text is (`age=42` is the number 42), a part
 * sent as `application/json` is read as JSON (`null`, lists, JSON fields),
 * and a file field is a file part — stored and checked before the write, and
 * deleted again if the write fails. The values then go through the same
 * `validateInput` as JSON, so the rules and error codes are the same.
 */
export async function writeRecordBody<T>(
  engine: Engine,
  type: ResourceType,
  request: FastifyRequest,
  mode: InputMode,
  json: () => unknown,
  write: (values: WriteValues) => Promise<T>,
  /** For a replace: the rules on the stored record, asked before a form's files are read. */
  beforeFiles?: () => Promise<void>,
): Promise<T> {
  const kind = mode === 'create' ? 'create' : 'update';
  const principal = principalOf(request);
  // Forms are for creating and replacing records that have files; PATCH stays a
  // JSON merge patch (RFC 7396). Without a file store the multipart parser is
  // not even registered.
  const form = engine.files !== undefined && mode !== 'patch' && hasFileFields(type) && request.isMultipart();
  if (!form) {
    const body = json();
    // The rules first: a caller who may not write learns nothing from the input's problems.
    checkWriteRights(engine.model, type.name, kind, principal, isRecord(body) ? Object.keys(body) : []);
    return write(validateInput(engine.model, type, body, mode));
  }
  // Before a byte of the form is read: a stranger's files are never received.
  checkWriteRights(engine.model, type.name, kind, principal);
  await beforeFiles?.();
  return engine.withUploads(contextOf(request), async (receive) => write(await readRecordForm(engine, type, request, mode, receive)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function jsonFilePart(stream: Readable, name: string, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError('BODY_TOO_LARGE', { detail: `The part "${name}" is larger than ${limit} bytes` });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new ApiError('MALFORMED_JSON', { detail: `The part "${name}" says application/json but is not valid JSON: ${(error as Error).message}` });
  }
}

function textBytes(request: FastifyRequest): number {
  return request.server.initialConfig.bodyLimit ?? 1024 * 1024;
}

export function hasFileFields(type: ResourceType): boolean {
  return type.fields.some((field) => field.kind === 'file');
}

async function readRecordForm(engine: Engine, type: ResourceType, request: FastifyRequest, mode: InputMode, receive: ReceiveUpload): Promise<WriteValues> {
  const input: Record<string, unknown> = {};
  const textFields = new Set<string>();
  const kind = mode === 'create' ? 'create' : 'update';
  for await (const part of multipartParts<Multipart>(request.parts())) {
    const name = part.fieldname;
    // Each field's write rule before its part is read (a file is neither stored nor decoded for a field the caller may not write).
    checkWriteRights(engine.model, type.name, kind, principalOf(request), [name]);
    if (Object.hasOwn(input, name)) {
      throw new ApiError('BAD_REQUEST', { detail: `The form has more than one part named "${name}"; send each field once` });
    }
    if (part.type === 'file' && part.mimetype.startsWith('application/json') && resolveField(type, name)?.field.kind !== 'file') {
      // What browsers send for `form.append(name, new Blob([json], { type: 'application/json' }))`: a "file" named blob.
      input[name] = await jsonFilePart(part.file, name, textBytes(request));
    } else if (part.type === 'file') {
      const field = resolveField(type, name)?.field;
      if (field?.kind !== 'file') {
        throw new ApiError('INPUT_WRONG_TYPE', {
          detail: `The part "${name}" is a file, but ${type.name}.${name} ${field === undefined ? 'does not exist' : 'is not a file field'}`,
          errors: [{ pointer: `/${name}`, code: field === undefined ? 'INPUT_UNKNOWN_FIELD' : 'INPUT_WRONG_TYPE', detail: `${name} takes no file` }],
        });
      }
      input[name] = await receivePart(receive, part.file);
    } else {
      if (part.valueTruncated) throw new ApiError('BODY_TOO_LARGE', { detail: `The part "${name}" is longer than this server accepts` });
      input[name] = part.value;
      if (!part.mimetype.startsWith('application/json')) textFields.add(name);
    }
  }
  return validateInput(engine.model, type, input, mode, '', { textFields });
}
