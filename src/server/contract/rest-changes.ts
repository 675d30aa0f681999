import { buildOpenApiDocument } from '../../rest/openapi/build-openapi-document.js';
import { componentNames } from '../../rest/openapi/component-names.js';
import { HTTP_METHODS, type JsonSchema, type OpenApiDocument, type Operation, type Parameter, type Reference } from '../../rest/openapi/openapi-types.js';
import type { Model } from '../../schema/model.js';
import { typeAlias } from '../../schema/renamed.js';
import type { ChangeClass, ContractChange } from './contract-change.js';
import type { ContractSide } from './contract-side.js';
import { modelCoordinate } from './model-coordinate.js';

/**
 * The REST side of the contract, found by comparing the OpenAPI documents
 * Diglot generates from each model: the document is what REST clients are
 * promised (routes, parameters, filter operators, request and response
 * shapes), so a change the generator makes without a model change (a filter
 * operator gone) is seen too. A request shape and a response shape change
 * in opposite directions: a value a request no longer accepts breaks
 * clients, a value a response may now carry (null, a new enum value) only
 * may. Each shared component is compared once per direction.
 */
export function restChanges(from: ContractSide, to: ContractSide): ContractChange[] {
  const diff = new OpenApiDiff(from, to);
  diff.run();
  return diff.changes;
}

type Direction = 'request' | 'response';

/** What is being compared: its name in messages and the model coordinate it stands for. */
interface Place {
  readonly label: string;
  readonly coordinate: string;
}

/** Keywords that narrow what a request may send when added or tightened. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;

class OpenApiDiff {
  readonly changes: ContractChange[] = [];
  readonly #seen = new Set<string>();
  readonly #old: OpenApiDocument;
  readonly #new: OpenApiDocument;
  readonly #oldTypes: ReadonlyMap<string, string>;
  readonly #newTypes: ReadonlyMap<string, string>;

  constructor(
    private readonly from: ContractSide,
    private readonly to: ContractSide,
  ) {
    // Files on: the upload routes and image widths are part of what clients are promised.
    this.#old = buildOpenApiDocument(from.model, { files: true });
    this.#new = buildOpenApiDocument(to.model, { files: true });
    this.#oldTypes = componentTypes(from.model);
    this.#newTypes = componentTypes(to.model);
  }

  run(): void {
    const oldPaths = this.#old.paths;
    const newPaths = this.#new.paths;
    for (const [path, oldItem] of Object.entries(oldPaths)) {
      const newItem = newPaths[path];
      for (const method of HTTP_METHODS) {
        const before = oldItem[method];
        if (before === undefined) continue;
        const route = `${method.toUpperCase()} ${path}`;
        const after = newItem?.[method];
        if (after === undefined) this.#add('breaking', `Route ${route} was removed`, 'old', routeCoordinate(this.from.model, path));
        else this.#operation(route, path, before, after);
      }
    }
    for (const [path, newItem] of Object.entries(newPaths)) {
      for (const method of HTTP_METHODS) {
        if (newItem[method] !== undefined && oldPaths[path]?.[method] === undefined) {
          this.#add('safe', `Route ${method.toUpperCase()} ${path} was added`, 'new', routeCoordinate(this.to.model, path));
        }
      }
    }
  }

  #add(kind: ChangeClass, message: string, side: 'old' | 'new', coordinate: string): void {
    const where = side === 'old' ? this.from : this.to;
    this.changes.push({ class: kind, styles: ['rest'], message, location: where.locator.locate(coordinate) });
  }

  #operation(route: string, path: string, before: Operation, after: Operation): void {
    const at = routeCoordinate(this.to.model, path);
    if (before.deprecated !== true && after.deprecated === true) this.#add('safe', `Route ${route} was deprecated`, 'new', at);
    this.#parameters(route, path, before.parameters ?? [], after.parameters ?? []);
    const oldBody = before.requestBody;
    const newBody = after.requestBody;
    if (oldBody === undefined && newBody?.required === true) this.#add('breaking', `Route ${route} now requires a request body`, 'new', at);
    if (oldBody !== undefined && newBody !== undefined) {
      if (!oldBody.required && newBody.required) this.#add('breaking', `Route ${route} now requires a request body`, 'new', at);
      for (const [type, media] of Object.entries(oldBody.content)) {
        const next = newBody.content[type];
        if (next === undefined) this.#add('breaking', `Route ${route} no longer accepts ${type} bodies`, 'old', routeCoordinate(this.from.model, path));
        else this.#schema(media.schema, next.schema, 'request', { label: `${route} request body`, coordinate: at });
      }
    }
    for (const [status, response] of Object.entries(before.responses)) {
      const next = after.responses[status];
      if (!status.startsWith('2') || next === undefined || isReference(response) || isReference(next)) continue;
      for (const [type, media] of Object.entries(response.content ?? {})) {
        const schema = next.content?.[type]?.schema;
        if (schema !== undefined) this.#schema(media.schema, schema, 'response', { label: `${route} response ${status}`, coordinate: at });
      }
    }
  }

  #parameters(route: string, path: string, before: readonly (Parameter | Reference)[], after: readonly (Parameter | Reference)[]): void {
    const index = (doc: OpenApiDocument, list: readonly (Parameter | Reference)[]): Map<string, { parameter: Parameter; ref: string | undefined }> =>
      new Map(
        list.map((item) => {
          const ref = isReference(item) ? refName(item.$ref) : undefined;
          const parameter = ref === undefined ? (item as Parameter) : (doc.components.parameters[ref] as Parameter);
          return [`${parameter.in}:${parameter.name}`, { parameter, ref }];
        }),
      );
    const oldParams = index(this.#old, before);
    const newParams = index(this.#new, after);
    for (const [key, { parameter, ref }] of oldParams) {
      const next = newParams.get(key);
      const coordinate = parameterCoordinate(this.from.model, ref, path);
      if (next === undefined) {
        this.#add('breaking', `Route ${route} no longer takes the ${parameter.in} parameter ${parameter.name}`, 'old', coordinate);
        continue;
      }
      // A shared parameter is compared once, not once per route that takes it.
      const once = ref !== undefined && next.ref !== undefined ? `parameter:${ref}:${next.ref}` : `parameter:${route}:${key}`;
      if (this.#seen.has(once)) continue;
      this.#seen.add(once);
      const label = ref === undefined ? `The ${parameter.in} parameter ${parameter.name} of ${route}` : `The ${parameter.in} parameter ${parameter.name} (${ref})`;
      const at = parameterCoordinate(this.to.model, next.ref, path);
      if (parameter.required !== true && next.parameter.required === true) this.#add('breaking', `${label} became required`, 'new', at);
      if (parameter.deprecated !== true && next.parameter.deprecated === true) this.#add('safe', `${label} was deprecated`, 'new', at);
      this.#schema(parameter.schema, next.parameter.schema, 'request', { label, coordinate: at });
    }
    for (const [key, { parameter, ref }] of newParams) {
      if (oldParams.has(key)) continue;
      const required = parameter.required === true;
      this.#add(
        required ? 'breaking' : 'safe',
        `Route ${route} takes a new ${required ? 'required' : 'optional'} ${parameter.in} parameter ${parameter.name}`,
        'new',
        parameterCoordinate(this.to.model, ref, path),
      );
    }
  }

  #resolve(doc: OpenApiDocument, schema: JsonSchema, types: ReadonlyMap<string, string>): { schema: JsonSchema; name: string | undefined; type: string | undefined } {
    const ref = schema['$ref'];
    if (typeof ref !== 'string') return { schema, name: undefined, type: undefined };
    const name = refName(ref);
    const { $ref: _, ...siblings } = schema;
    return { schema: { ...(doc.components.schemas[name] ?? {}), ...siblings }, name, type: types.get(name) };
  }

  #schema(a: JsonSchema, b: JsonSchema, direction: Direction, place: Place): void {
    const before = this.#resolve(this.#old, a, this.#oldTypes);
    const after = this.#resolve(this.#new, b, this.#newTypes);
    let at = place;
    if (before.name !== undefined && after.name !== undefined) {
      const once = `${direction}:${before.name}:${after.name}`;
      if (this.#seen.has(once)) return;
      this.#seen.add(once);
      at = { label: after.name, coordinate: after.type ?? after.name };
    }
    const old = before.schema;
    const next = after.schema;
    const where = direction === 'request' ? 'in requests' : 'in responses';
    this.#nullability(old, next, direction, at);
    const oldTypes = typesOf(old);
    const newTypes = typesOf(next);
    if (oldTypes !== undefined && newTypes !== undefined) {
      const lost = direction === 'request' ? oldTypes.filter((t) => !newTypes.includes(t)) : newTypes.filter((t) => !oldTypes.includes(t));
      if (lost.length > 0) this.#add('breaking', `${at.label} changed type from ${oldTypes.join('|')} to ${newTypes.join('|')} ${where}`, 'new', at.coordinate);
    }
    if (direction === 'request') this.#narrowed(old, next, at);
    this.#enum(old, next, direction, at);
    if (old['deprecated'] !== true && next['deprecated'] === true) this.#add('safe', `${at.label} was deprecated`, 'new', at.coordinate);
    if (direction === 'request' && 'default' in next && JSON.stringify(old['default']) !== JSON.stringify(next['default'])) {
      this.#add('dangerous', `${at.label}: the value taken when a request leaves it out changed from ${JSON.stringify(old['default'])} to ${JSON.stringify(next['default'])}`, 'new', at.coordinate);
    }
    this.#properties(old, next, direction, at, after.type ?? before.type);
    for (const keyword of ['items', 'not'] as const) {
      if (isSchema(old[keyword]) && isSchema(next[keyword])) this.#schema(old[keyword], next[keyword], direction, at);
    }
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const oldList = old[keyword];
      const newList = next[keyword];
      if (!Array.isArray(oldList) || !Array.isArray(newList)) continue;
      oldList.forEach((item: unknown, i) => {
        const other: unknown = newList[i];
        if (isSchema(item) && isSchema(other)) this.#schema(item, other, direction, at);
      });
    }
  }

  #nullability(old: JsonSchema, next: JsonSchema, direction: Direction, at: Place): void {
    const wasNull = isNullable(old);
    const isNull = isNullable(next);
    if (direction === 'response' && !wasNull && isNull) this.#add('dangerous', `${at.label} may now be null in responses`, 'new', at.coordinate);
    if (direction === 'request' && wasNull && !isNull) this.#add('breaking', `${at.label} no longer accepts null in requests`, 'new', at.coordinate);
  }

  /** Bounds, patterns and formats that a request's value must now also meet. */
  #narrowed(old: JsonSchema, next: JsonSchema, at: Place): void {
    const tighter: string[] = [];
    for (const keyword of LOWER_BOUNDS) if (typeof next[keyword] === 'number' && !(typeof old[keyword] === 'number' && old[keyword] >= next[keyword])) tighter.push(`${keyword} ${JSON.stringify(next[keyword])}`);
    for (const keyword of UPPER_BOUNDS) if (typeof next[keyword] === 'number' && !(typeof old[keyword] === 'number' && old[keyword] <= next[keyword])) tighter.push(`${keyword} ${JSON.stringify(next[keyword])}`);
    for (const keyword of ['pattern', 'format'] as const) if (next[keyword] !== undefined && next[keyword] !== old[keyword]) tighter.push(`${keyword} ${JSON.stringify(next[keyword])}`);
    if (tighter.length > 0) this.#add('breaking', `${at.label} accepts less in requests (${tighter.join(', ')})`, 'new', at.coordinate);
  }

  #enum(old: JsonSchema, next: JsonSchema, direction: Direction, at: Place): void {
    const before = old['enum'];
    const after = next['enum'];
    if (!Array.isArray(before) || !Array.isArray(after)) return;
    const value = (model: Model, item: unknown): string => valueCoordinate(model, at.coordinate, String(item));
    for (const item of before) {
      if (after.includes(item) || direction === 'response') continue;
      this.#add('breaking', `${at.label} no longer accepts the value ${JSON.stringify(item)}`, 'old', value(this.from.model, item));
    }
    for (const item of after) {
      if (before.includes(item)) continue;
      if (direction === 'response') this.#add('dangerous', `${at.label} may now be ${JSON.stringify(item)} in responses, a value clients have not seen`, 'new', value(this.to.model, item));
      else this.#add('safe', `${at.label} accepts the new value ${JSON.stringify(item)}`, 'new', value(this.to.model, item));
    }
  }

  #properties(old: JsonSchema, next: JsonSchema, direction: Direction, at: Place, owner: string | undefined): void {
    const before = objectOf(old['properties']);
    const after = objectOf(next['properties']);
    if (before === undefined || after === undefined) return;
    const oldRequired = new Set(Array.isArray(old['required']) ? (old['required'] as string[]) : []);
    const newRequired = new Set(Array.isArray(next['required']) ? (next['required'] as string[]) : []);
    const child = (model: Model, name: string): Place => ({
      label: `${at.label}.${name}`,
      coordinate: owner === undefined ? at.coordinate : modelCoordinate(model, [owner, name]),
    });
    for (const name of Object.keys(before)) {
      if (name in after) continue;
      const gone = child(this.from.model, name);
      if (direction === 'response') this.#add('breaking', `${gone.label} is no longer in responses`, 'old', gone.coordinate);
      else if (next['additionalProperties'] === false) this.#add('breaking', `${gone.label} is no longer accepted in requests`, 'old', gone.coordinate);
    }
    for (const [name, schema] of Object.entries(after)) {
      const place = child(this.to.model, name);
      const previous = before[name];
      if (previous === undefined) {
        if (direction === 'request' && newRequired.has(name)) this.#add('breaking', `${place.label} is a new required field in requests`, 'new', place.coordinate);
        else this.#add('safe', `${place.label} was added ${direction === 'request' ? 'to requests (optional)' : 'to responses'}`, 'new', place.coordinate);
        continue;
      }
      if (direction === 'request' && !oldRequired.has(name) && newRequired.has(name)) this.#add('breaking', `${place.label} became required in requests`, 'new', place.coordinate);
      if (direction === 'response' && oldRequired.has(name) && !newRequired.has(name)) this.#add('dangerous', `${place.label} may now be missing from responses`, 'new', place.coordinate);
      if (isSchema(previous) && isSchema(schema)) this.#schema(previous, schema, direction, place);
    }
  }
}

/** Component name → the model type it is derived from (`PostCreate` → `Post`), enums to themselves. */
function componentTypes(model: Model): ReadonlyMap<string, string> {
  const names = componentNames(model);
  const map = new Map<string, string>();
  for (const type of model.types) {
    for (const name of [names.record, names.create, names.patch, names.form, names.list, names.filter]) map.set(name(type.name), type.name);
  }
  for (const name of model.enums.keys()) map.set(name, name);
  return map;
}

/** `/users/{id}/posts` → `User.posts`; `/posts/{id}` → `Post`; an old path `@renamed` keeps → the type or field renamed. */
function routeCoordinate(model: Model, path: string): string {
  const [collection, , member] = path.split('/').filter((segment) => segment !== '');
  const type = model.types.find((candidate) => candidate.path === collection) ?? model.types.find((candidate) => typeAlias(candidate)?.path === collection);
  if (type === undefined) return '';
  return member === undefined ? type.name : modelCoordinate(model, [type.name, member]);
}

/** A parameter component is named after what it belongs to (`Post.fields`, `User.posts.sort`); others belong to their route. */
function parameterCoordinate(model: Model, ref: string | undefined, path: string): string {
  if (ref === undefined || !ref.includes('.')) return routeCoordinate(model, path);
  return modelCoordinate(model, ref.split('.').slice(0, -1));
}

/**
 * Where an enum's value is declared: an SDL enum's value (`Status.DRAFT`), or
 * the field a `fields`/`sort` value names (`-title` → `Post.title`), read on
 * the type the parameter reaches (`Post.author` → a `User` field).
 */
function valueCoordinate(model: Model, coordinate: string, value: string): string {
  const [first = '', ...path] = coordinate.split('.');
  if (model.enums.has(first)) return modelCoordinate(model, [first, value]);
  let type = model.typesByName.get(first);
  for (const name of path) {
    const field = type?.fieldsByName.get(name);
    if (field === undefined || !('target' in field)) break;
    type = model.typesByName.get(field.target);
  }
  return type === undefined ? coordinate : modelCoordinate(model, [type.name, value.replace(/^-/, '')]);
}

function refName(ref: string): string {
  return decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1)).replaceAll('~1', '/').replaceAll('~0', '~');
}

function isReference(value: object): value is Reference {
  return '$ref' in value;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return isSchema(value) ? value : undefined;
}

function typesOf(schema: JsonSchema): string[] | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return type === 'null' ? [] : [type];
  if (Array.isArray(type)) return (type as string[]).filter((t) => t !== 'null');
  return undefined;
}

function isNullable(schema: JsonSchema): boolean {
  const type = schema['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const list = schema[keyword];
    if (Array.isArray(list) && list.some((item) => isSchema(item) && item['type'] === 'null')) return true;
  }
  return false;
}
