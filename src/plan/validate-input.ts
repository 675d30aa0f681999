import { isDeepStrictEqual } from 'node:util';
import { ApiError, type ErrorDetail } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/registry.js';
import { takesInput, type Model, type ResourceType } from '../schema/model.js';
import { MAX_ID_LENGTH } from '../util/ids.js';
import { suggest } from '../util/suggest.js';
import { resolveField } from '../schema/renamed.js';
import { coerceScalar } from './coerce.js';
import type { DeprecatedUse } from './deprecated-use.js';
import { fieldAliasUse, noteInputUses } from './deprecations.js';
import { isFileInput } from './file-input.js';
import type { WriteValues } from './write-plan.js';

/**
 * The most UTF-8 bytes a text value in an indexed or unique column may hold.
 * PostgreSQL refuses a B-tree entry over 2,704 bytes (the write fails with
 * SQLSTATE 54000); the bound leaves room for the id every index ends with,
 * and holds on SQLite too, so both databases take the same values.
 */
export const MAX_INDEXED_TEXT_BYTES = 2000;

/**
 * `create` needs every required field; `replace` (PUT) too, since it is a
 * whole new representation; `patch` takes any subset.
 */
export type InputMode = 'create' | 'replace' | 'patch';

export interface ValidateOptions {
  /**
   * Fields whose value arrived as text (a `multipart/form-data` text part):
   * coerced as URL text is (`"42"` → 42, `"true"` → true).
   */
  readonly textFields?: ReadonlySet<string>;
}

/**
 * Validates a record body for `type` and returns the values to write. Every
 * problem is collected (one response lists them all, with RFC 6901 pointers);
 * the error's code is the problems' common code, or VALIDATION_FAILED when
 * they differ. Both front-ends call this, so the rules and codes are one.
 */
export function validateInput(
  model: Model,
  type: ResourceType,
  input: unknown,
  mode: InputMode,
  basePointer = '',
  options: ValidateOptions = {},
): WriteValues {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError('INPUT_WRONG_TYPE', {
      detail: `The body must be a JSON object of ${type.name} fields`,
      errors: [{ pointer: basePointer || '/', code: 'INPUT_WRONG_TYPE', detail: 'must be an object' }],
    });
  }
  const problems: ErrorDetail[] = [];
  const problem = (name: string, code: ErrorCode, detail: string): void => {
    problems.push({ pointer: `${basePointer}/${escapePointer(name)}`, code, detail });
  };
  const values: Record<string, unknown> = {};
  const indexed = new Set(type.indexes.flat());
  const uses: DeprecatedUse[] = [];
  for (const [name, value] of Object.entries(input)) {
    // `name` is the key as given (problems point at it); an old name (`@renamed`) writes the field it became.
    const resolved = resolveField(type, name);
    const field = resolved?.field;
    if (field === undefined) {
      const writable = type.fields.filter((f) => isWritable(f)).map((f) => f.name);
      const hint = suggest(name, writable);
      problem(name, 'INPUT_UNKNOWN_FIELD', `${type.name} has no field "${name}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`);
      continue;
    }
    if (resolved?.alias !== undefined) {
      uses.push(fieldAliasUse(type, name, field));
      if (Object.hasOwn(input, field.name)) {
        const current = (input as Record<string, unknown>)[field.name];
        if (!isDeepStrictEqual(current, value)) {
          problem(name, 'INPUT_RENAMED_FIELD_CONFLICT', `${type.name}.${name} was renamed to ${field.name}, and the input gives both with different values; send ${field.name} alone`);
        }
        continue;
      }
    }
    if (!isWritable(field)) {
      const why = field.kind === 'toMany' || field.kind === 'manyToMany' ? 'is a list relation; change it through its own route or mutation' : 'is managed by the server';
      problem(name, 'INPUT_READONLY_FIELD', `${type.name}.${name} ${why}`);
      continue;
    }
    if (field.kind === 'scalar') {
      const coerced = coerceScalar(model, field, value, options.textFields?.has(name) === true);
      const isIndexed = field.unique || field.indexed || indexed.has(field.name);
      if (!coerced.ok) problem(name, coerced.code ?? (value === null ? 'INPUT_REQUIRED_FIELD' : 'INPUT_WRONG_TYPE'), `${name} ${coerced.reason}`);
      else if (isIndexed && typeof coerced.value === 'string' && Buffer.byteLength(coerced.value) > MAX_INDEXED_TEXT_BYTES) {
        problem(name, 'VALIDATION_FAILED', `${name} is longer than ${MAX_INDEXED_TEXT_BYTES} bytes in UTF-8; the limit for an indexed field is ${MAX_INDEXED_TEXT_BYTES}`);
      } else values[field.name] = coerced.value;
    } else if (field.kind === 'toOne') {
      if (value === null && field.nullable) values[field.name] = null;
      else if (typeof value === 'string' && value.length > MAX_ID_LENGTH) problem(name, 'VALIDATION_FAILED', `${name} is longer than ${MAX_ID_LENGTH} characters, which no id is; the limit is ${MAX_ID_LENGTH}`);
      else if (typeof value === 'string' && value.length > 0) values[field.name] = value;
      else problem(name, value === null ? 'INPUT_REQUIRED_FIELD' : 'INPUT_WRONG_TYPE', `${name} must be the id of a ${field.target}`);
    } else if (field.kind === 'file') {
      // Files arrive through uploads (stored and checked before this runs, as a
      // FileInput); in a JSON body only null (remove) is meaningful. The plan
      // holds the plain content address.
      if (isFileInput(value)) values[field.name] = value.key;
      else if (value === null && field.nullable) values[field.name] = null;
      else if (value === null) problem(name, 'INPUT_REQUIRED_FIELD', `${name} is required: replace the file rather than removing it`);
      else problem(name, 'INPUT_WRONG_TYPE', `${name} is a file: upload it as multipart/form-data, or send null to remove it`);
    }
  }
  if (mode !== 'patch') {
    for (const field of type.fields) {
      if (!isWritable(field) || Object.hasOwn(input, field.name) || (field.renamedFrom !== undefined && Object.hasOwn(input, field.renamedFrom))) continue;
      // Filled from the caller on create (planCreate, which reports it missing when the caller has none); kept as it is by a PUT.
      if ((field.kind === 'scalar' || field.kind === 'toOne') && field.defaultFromAuth !== undefined) continue;
      const required =
        (field.kind === 'scalar' && !field.optionalOnCreate) || (field.kind === 'toOne' && !field.nullable);
      if (required) problem(field.name, 'INPUT_REQUIRED_FIELD', `${field.name} is required`);
    }
  }
  if (problems.length > 0) {
    const codes = new Set(problems.map((p) => p.code));
    const code: ErrorCode = codes.size === 1 ? (problems[0] as ErrorDetail).code : 'VALIDATION_FAILED';
    throw new ApiError(code, {
      detail: problems.length === 1 ? (problems[0] as ErrorDetail).detail : `${problems.length} problems in the ${type.name} input`,
      errors: problems,
    });
  }
  return noteInputUses(Object.freeze(values), uses);
}

function isWritable(field: ResourceType['fields'][number]): boolean {
  if (field.kind === 'scalar' || field.kind === 'toOne') return takesInput(field);
  return field.kind === 'file';
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
