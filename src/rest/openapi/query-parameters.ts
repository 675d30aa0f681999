import type { PlanLimits } from '../../plan/build-read.js';
import { isListRelation, isRelation, type Field, type Model, type ResourceType } from '../../schema/model.js';
import type { ComponentNames } from './component-names.js';
import { filterOperators } from './filter-schema.js';
import { ref, type Parameter, type Reference } from './openapi-types.js';
import { sunsetMark } from './field-schemas.js';
import { renamedReason } from '../../schema/renamed.js';

/**
 * Parameter components for the REST query grammar (`query-params.ts`). Per
 * type they are named `<Type>.<parameter>` (`User.fields`,
 * `User.posts.limit`), so a collection, its items and every sub-collection
 * of that type share one definition.
 *
 * Embedded relations take the same parameters under their path
 * (`posts.fields`, `posts.limit`, …). They are listed for one level of
 * embedding; deeper paths (`posts.author.fields`) follow the same pattern
 * and are described on `include`.
 */
export function sharedParameters(limits: PlanLimits): Record<string, Parameter> {
  return {
    id: { name: 'id', in: 'path', required: true, description: 'The record\'s id.', schema: { type: 'string', minLength: 1 } },
    targetId: { name: 'targetId', in: 'path', required: true, description: 'The id of the related record.', schema: { type: 'string', minLength: 1 } },
    limit: {
      name: 'limit',
      in: 'query',
      description: `How many records per page (default ${limits.defaultPageSize}, at most ${limits.maxPageSize}).`,
      schema: { type: 'integer', minimum: 0, maximum: limits.maxPageSize, default: limits.defaultPageSize },
    },
    after: { name: 'after', in: 'query', description: 'Start after this cursor (a `nextCursor`, or from the `Link` header).', schema: { type: 'string' } },
    before: { name: 'before', in: 'query', description: 'The `limit` rows just before this cursor (a `prevCursor`, or from the `Link` header); with `after` too, the rows between the two.', schema: { type: 'string' } },
    count: {
      name: 'count',
      in: 'query',
      description: 'Also return `totalCount`, the number of matching records on all pages.',
      schema: { type: 'boolean', default: false },
    },
    'If-None-Match': {
      name: 'If-None-Match',
      in: 'header',
      description: 'ETags of representations the client holds: if one is current, the answer is 304 without a body.',
      schema: { type: 'string' },
    },
    'If-Match': {
      name: 'If-Match',
      in: 'header',
      description: 'The ETag of the record as last read: the write happens only if it is still current (otherwise 412).',
      schema: { type: 'string' },
    },
  };
}

export function typeParameters(model: Model, type: ResourceType, names: ComponentNames, limits: PlanLimits): Record<string, Parameter> {
  const parameters: Record<string, Parameter> = {
    [`${type.name}.fields`]: fieldsParameter('fields', type),
    [`${type.name}.include`]: includeParameter(type),
    [`${type.name}.sort`]: sortParameter('sort', type),
    [`${type.name}.filter`]: filterParameter('filter', type, names),
  };
  for (const field of type.fields) {
    if (field.kind !== 'file') continue;
    const size = sizeParameter(field.name, field.image.sizes);
    const deprecation = field.sizeDeprecation;
    parameters[`${type.name}.${field.name}.size`] =
      deprecation === undefined ? size : { ...size, description: `${size.description}\n\nDeprecated: ${deprecation.reason}`, deprecated: true, ...sunsetMark(deprecation) };
    if (field.renamedFrom !== undefined) parameters[`${type.name}.${field.renamedFrom}.size`] = oldNameParameter(sizeParameter(field.renamedFrom, field.image.sizes), field);
  }
  for (const relation of type.fields.filter(isRelation)) {
    const target = model.typesByName.get(relation.target) as ResourceType;
    // A renamed relation embeds under its old name too (`@renamed`): the same parameters, deprecated.
    for (const name of namesOf(relation)) {
      const prefix = `${type.name}.${name}`;
      const only = ` Only with \`include=${name}\`.`;
      const embedded: Record<string, Parameter> = {};
      embedded[`${prefix}.fields`] = fieldsParameter(`${name}.fields`, target, only);
      if (isListRelation(relation)) {
        embedded[`${prefix}.limit`] = {
          name: `${name}.limit`,
          in: 'query',
          description: `How many ${target.plural} to embed in each record (default ${limits.defaultPageSize}, at most ${limits.maxPageSize}).${only}`,
          // No `default`: clients such as /docs send a parameter's default, and this one is refused without its include.
          schema: { type: 'integer', minimum: 0, maximum: limits.maxPageSize },
        };
        embedded[`${prefix}.sort`] = sortParameter(`${name}.sort`, target, only);
        embedded[`${prefix}.filter`] = filterParameter(`${name}.filter`, target, names, only);
      }
      for (const field of target.fields) {
        if (field.kind !== 'file') continue;
        embedded[`${prefix}.${field.name}.size`] = sizeParameter(`${name}.${field.name}`, field.image.sizes, only);
        if (field.renamedFrom !== undefined) embedded[`${prefix}.${field.renamedFrom}.size`] = oldNameParameter(sizeParameter(`${name}.${field.renamedFrom}`, field.image.sizes, only), field);
      }
      for (const [key, parameter] of Object.entries(embedded)) parameters[key] = name === relation.name ? parameter : oldNameParameter(parameter, relation);
    }
  }
  return parameters;
}

/** A parameter under a field's old name (`@renamed`): deprecated, saying what it became. */
function oldNameParameter(parameter: Parameter, field: Field): Parameter {
  return { ...parameter, description: `${parameter.description}\n\nDeprecated: ${renamedReason(field.name)}.`, deprecated: true };
}

/** References to the parameters a read of `type` takes (`list`: the list-only ones too). */
export function readParameterRefs(type: ResourceType, list: boolean): Reference[] {
  const refs: Reference[] = [ref('parameters', `${type.name}.fields`), ref('parameters', `${type.name}.include`)];
  if (list) {
    refs.push(ref('parameters', `${type.name}.filter`), ref('parameters', `${type.name}.sort`));
    for (const name of ['limit', 'after', 'before', 'count']) refs.push(ref('parameters', name));
  }
  for (const field of type.fields) {
    if (field.kind === 'file') for (const name of namesOf(field)) refs.push(ref('parameters', `${type.name}.${name}.size`));
  }
  return refs;
}

/** References to the embedding parameters of every relation of `type`, in the order `typeParameters` made them. */
export function embedParameterRefs(model: Model, type: ResourceType): Reference[] {
  const refs: Reference[] = [];
  for (const relation of type.fields.filter(isRelation)) {
    const target = model.typesByName.get(relation.target) as ResourceType;
    for (const relationName of namesOf(relation)) {
      const prefix = `${type.name}.${relationName}`;
      refs.push(ref('parameters', `${prefix}.fields`));
      if (isListRelation(relation)) {
        for (const name of ['limit', 'sort', 'filter']) refs.push(ref('parameters', `${prefix}.${name}`));
      }
      for (const field of target.fields) {
        if (field.kind === 'file') for (const name of namesOf(field)) refs.push(ref('parameters', `${prefix}.${name}.size`));
      }
    }
  }
  return refs;
}

function fieldsParameter(name: string, type: ResourceType, suffix = ''): Parameter {
  return {
    name,
    in: 'query',
    description:
      `Which fields of each ${type.name} to return, comma-separated. Default: every scalar, every file URL and every to-one relation (as an id). ` +
      `A list relation named here is embedded with its defaults.${suffix}`,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: type.fields.flatMap(namesOf) } },
  };
}

function includeParameter(type: ResourceType): Parameter {
  const relations = type.fields.filter(isRelation).flatMap(namesOf);
  return {
    name: 'include',
    in: 'query',
    description:
      `Related records to embed in the same response, comma-separated (${relations.join(', ') || 'none'}); dotted paths go deeper ` +
      '(`posts.author`). Each embedded path takes its own `<path>.fields`, and list relations also `<path>.limit`, `<path>.sort` ' +
      'and `<path>.filter[...]`, at any depth (`posts.author.fields=name`). Everything comes back in one response, from one database query.',
    style: 'form',
    explode: false,
    schema:
      relations.length === 0
        ? { type: 'array', items: { type: 'string' }, maxItems: 0, description: 'This type has no relations to embed.' }
        : {
            type: 'array',
            items: {
              anyOf: [
                { type: 'string', enum: relations, description: 'A relation of this type.' },
                { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+$', description: 'A dotted path to a deeper relation.' },
              ],
            },
          },
  };
}

function sortParameter(name: string, type: ResourceType, suffix = ''): Parameter {
  const sortable = type.fields.filter(isSortable).flatMap(namesOf);
  return {
    name,
    in: 'query',
    description: `Sort keys, comma-separated; \`-\` before a key sorts descending (\`-createdAt,name\`). The id always breaks ties, in the direction of the last key.${suffix}`,
    style: 'form',
    explode: false,
    schema: { type: 'array', items: { type: 'string', enum: sortable.flatMap((field) => [field, `-${field}`]) } },
  };
}

/** As `build-read.ts` decides: to-one ids and single, non-JSON scalars. */
function isSortable(field: Field): boolean {
  return field.kind === 'toOne' || (field.kind === 'scalar' && !field.list && field.scalar !== 'JSON');
}

function filterParameter(name: string, type: ResourceType, names: ComponentNames, suffix = ''): Parameter {
  return {
    name,
    in: 'query',
    description:
      `Conditions on ${type.plural} (the fields and operators of ${names.filter(type.name)}): \`${name}[field]=value\` (equality) or ` +
      `\`${name}[field][op]=value\`; \`${name}[or][0][field][op]=value\`, \`${name}[and][…]\` and \`${name}[not][…]\` combine them. ` +
      `In /docs's "Test Request", type the object as JSON: \`{"${exampleField(type)}":{"startsWith":"A"}}\` is sent as \`${name}[${exampleField(type)}][startsWith]=A\`.${suffix}`,
    style: 'deepObject',
    explode: true,
    // Wrapped, not a bare reference: API references (Scalar's /docs) flatten a deepObject whose own schema is an object into a
    // form row per nested property (hundreds, with `not`, `and`, `or`); behind allOf it stays one row, taking the object as JSON.
    schema: { allOf: [ref('schemas', names.filter(type.name))] },
  };
}

/** A field the example in `filter`'s description can name: the first text field but the id. */
function exampleField(type: ResourceType): string {
  const text = type.fields.find((field) => field.name !== 'id' && field.kind === 'scalar' && (filterOperators(field) ?? []).includes('contains'));
  return text?.name ?? 'id';
}

function sizeParameter(path: string, sizes: readonly number[], suffix = ''): Parameter {
  return {
    name: `${path}.size`,
    in: 'query',
    description: `Width of the image URL in \`${path}\`, rounded up to one of ${sizes.join(', ')}.${suffix}`,
    schema: { type: 'integer', minimum: 1, maximum: 999_999_999 },
  };
}

/** A field's name, and its old one while `@renamed(from:)` keeps it. */
function namesOf(field: Field): string[] {
  return field.renamedFrom === undefined ? [field.name] : [field.name, field.renamedFrom];
}
