import type { GraphQLScalarType } from 'graphql';
import { bindParams, idParam } from '../../plan/plan-template.js';
import { LruCache } from '../../util/lru-cache.js';
import type { CompiledOperation, RootStep } from './compile-operation.js';
import type { PlannedRead } from './run-operation.js';
import type { SlotVariable } from './slot-variables.js';

/**
 * Operation templates: GraphQL's counterpart of REST's plan templates. A
 * query that compiled and planned cleanly is remembered under its document,
 * operation name and the exact raw values of every variable except its slot
 * ids; the same request again, with other ids, binds them into the
 * remembered plans and skips variable coercion, compilation and planning.
 * The plan roots are the remembered objects, so the engine finds the
 * compiled SQL by identity.
 *
 * Correct by construction: whatever could depend on a variable's value other
 * than a slot's is in the key, and a slot decides nothing but one plan param.
 */
export interface OperationTemplate {
  /** As compiled, with no argument values: the slot ids in them would be the first request's. */
  readonly steps: readonly RootStep[];
  /** Every data step's plan, by step index (undefined for the other steps). */
  readonly reads: readonly (PlannedRead | undefined)[];
  /** Every slot variable, bound or not: each value is checked as coercion would before the template is used. */
  readonly slotNames: readonly string[];
  readonly bindings: readonly SlotBinding[];
}

/** Where a slot's value goes: the param of one step's plan (none when @skip/@include left its field out). */
interface SlotBinding {
  readonly variable: string;
  readonly step: number;
  readonly param: number;
}

/** Steps ready to run: from a template (the plans with this request's ids bound) or just compiled. */
export interface BoundOperation {
  readonly steps: readonly RootStep[];
  /** Undefined for a mutation, which plans as it runs. */
  readonly reads: readonly (PlannedRead | undefined)[] | undefined;
}

/** Templates kept: enough for every operation of a real client, bounded whatever clients send. */
export const TEMPLATE_CACHE_SIZE = 1000;

/**
 * Variables longer than this as JSON are not templated: such requests are
 * rarely repeated exactly, and a key (and the plans behind it) that size
 * times the cache size is memory spent for nothing.
 */
const MAX_KEYED_LENGTH = 4096;
/** Deeper values are not templated (and a hostile one cannot exhaust the stack here). */
const MAX_DEPTH = 32;

export class OperationTemplates {
  private readonly cache: LruCache<string, OperationTemplate>;

  /** `id` is the schema's ID scalar: its own coercion decides which slot values may be bound. */
  constructor(
    private readonly id: GraphQLScalarType,
    capacity = TEMPLATE_CACHE_SIZE,
  ) {
    this.cache = new LruCache(capacity);
  }

  /**
   * The key of a request: `prefix` names the document and operation,
   * `keyed` lists its declared variables other than the slots. Undefined when
   * a value is not plain JSON (an uploaded file) or too large to key.
   */
  keyOf(prefix: string, keyed: readonly string[], raw: Readonly<Record<string, unknown>>): string | undefined {
    // An absent variable (its default, or an error) is an empty entry, distinct from every JSON value, null included.
    const parts: string[] = [];
    let length = 0;
    for (const name of keyed) {
      const part = Object.hasOwn(raw, name) ? exactJson(raw[name], 0) : '';
      if (part === undefined) return undefined;
      length += part.length + 1;
      if (length > MAX_KEYED_LENGTH) return undefined;
      parts.push(part);
    }
    return `${prefix}[${parts.join(',')}]`;
  }

  /**
   * The template for `key` with this request's slot values bound; undefined
   * when there is none, or when a slot value is missing, null or not an ID,
   * so that the full path runs and reports it exactly as it always does.
   */
  use(key: string, raw: Readonly<Record<string, unknown>>): BoundOperation | undefined {
    const template = this.cache.get(key);
    if (template === undefined) return undefined;
    const ids = new Map<string, string>();
    for (const name of template.slotNames) {
      const id = Object.hasOwn(raw, name) ? this.idOf(raw[name]) : undefined;
      if (id === undefined) return undefined;
      ids.set(name, id);
    }
    if (template.bindings.length === 0) return { steps: template.steps, reads: template.reads };
    const reads = [...template.reads];
    for (const binding of template.bindings) {
      const read = reads[binding.step];
      if (read === undefined || !('plan' in read)) return undefined;
      reads[binding.step] = { plan: bindParams(read.plan, new Map([[binding.param, ids.get(binding.variable)]])) };
    }
    return { steps: template.steps, reads };
  }

  /**
   * Remembers a query that compiled (within the cost limit, which depends
   * only on what the key holds) and planned without an error; anything else
   * is not remembered, so its errors keep coming from the full path.
   */
  remember(key: string, slots: readonly SlotVariable[], compiled: CompiledOperation, reads: readonly (PlannedRead | undefined)[]): void {
    // Admin fields read their arguments each time (a template keeps none).
    if (compiled.steps.some((step) => step.kind === 'failed' || step.kind === 'admin')) return;
    if (reads.some((read) => read !== undefined && !('plan' in read))) return;
    const bindings: SlotBinding[] = [];
    for (const slot of slots) {
      const step = compiled.steps.findIndex((candidate) => candidate.kind === 'data' && candidate.nodes.includes(slot.field));
      if (step < 0) continue;
      const read = reads[step];
      const param = read !== undefined && 'plan' in read ? idParam(read.plan) : undefined;
      // A `one` plan always has its id slot; without one the id could not be swapped, so no template.
      if (param === undefined) return;
      bindings.push({ variable: slot.name, step, param });
    }
    this.cache.set(key, {
      steps: compiled.steps.map((step) => (step.kind === 'data' ? { ...step, args: {} } : step)),
      reads,
      slotNames: slots.map((slot) => slot.name),
      bindings,
    });
  }

  /** The ID as graphql-js coerces a variable of that type (a string, or an integer as its decimal text), or undefined. */
  private idOf(value: unknown): string | undefined {
    // Null never reaches parseValue in coercion: for `ID!` it is an error, for `ID` a null argument.
    if (value === null || value === undefined) return undefined;
    try {
      const id: unknown = this.id.parseValue(value);
      return typeof id === 'string' ? id : undefined;
    } catch {
      return undefined;
    }
  }
}

/**
 * Plain JSON data as text, keys in their own order (so two values that could
 * coerce differently never share a key; `-0` stays apart from `0`), or
 * undefined for anything that is not plain data, such as an uploaded file.
 */
function exactJson(value: unknown, depth: number): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) return undefined;
      return Object.is(value, -0) ? '-0' : String(value);
    case 'object':
      return depth >= MAX_DEPTH ? undefined : exactContainer(value, depth + 1);
    default:
      return undefined;
  }
}

function exactContainer(value: object, depth: number): string | undefined {
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value as readonly unknown[]) {
      const part = exactJson(item, depth);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(',')}]`;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const [name, item] of Object.entries(value)) {
    const part = exactJson(item, depth);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(name)}:${part}`);
  }
  return `{${parts.join(',')}}`;
}
