import { basename } from 'node:path';
import type { Field, Model } from '../schema/model.js';

/** One field of a type, as a diagram draws it. */
export interface FieldSummary {
  readonly name: string;
  readonly kind: Field['kind'];
  /** The scalar or enum name, or the related type. */
  readonly type: string;
  readonly list: boolean;
  readonly nullable: boolean;
  readonly unique: boolean;
  readonly readonly: boolean;
  /** Relations: the related type and, where there is one, the field that is this relation seen from there. */
  readonly target: string | null;
  readonly inverse: string | null;
  readonly description: string | null;
  readonly deprecated: string | null;
}

export interface TypeSummary {
  readonly name: string;
  readonly plural: string;
  /** The REST collection: `/<path>`. */
  readonly path: string;
  readonly description: string | null;
  readonly fields: readonly FieldSummary[];
}

export interface ModelSummary {
  readonly types: readonly TypeSummary[];
  readonly enums: readonly { readonly name: string; readonly values: readonly string[] }[];
  readonly roles: { readonly enum: string; readonly values: readonly string[]; readonly admin: string } | null;
  readonly account: { readonly type: string; readonly identifier: string; readonly suspended: string | null; readonly verified: string | null } | null;
}

export interface SchemaView {
  /** The schema files as written, rules included; each file by its name alone (where it lives on the server is no one's business). */
  readonly sdl: readonly { readonly file: string; readonly text: string }[];
  /** The GraphQL schema generated from it. */
  readonly graphql: string;
  readonly model: ModelSummary;
}

/** The model as plain data for a diagram: types, their fields, and relations with their kind and target. */
export function summarizeModel(model: Model): ModelSummary {
  return {
    types: model.types.map((type) => ({
      name: type.name,
      plural: type.plural,
      path: `/${type.path}`,
      description: type.description ?? null,
      fields: type.fields.map(summarizeField),
    })),
    enums: [...model.enums.values()].map((declared) => ({ name: declared.name, values: declared.values })),
    roles: model.roles === undefined ? null : { enum: model.roles.enum, values: model.roles.values, admin: model.roles.admin },
    account:
      model.account === undefined
        ? null
        : { type: model.account.type, identifier: model.account.identifier, suspended: model.account.suspended ?? null, verified: model.account.verified ?? null },
  };
}

function summarizeField(field: Field): FieldSummary {
  const common = { name: field.name, kind: field.kind, description: field.description ?? null, deprecated: field.deprecated ?? null };
  switch (field.kind) {
    case 'scalar':
      return { ...common, type: field.enum ?? field.scalar, list: field.list, nullable: field.nullable, unique: field.unique, readonly: field.readonly, target: null, inverse: null };
    case 'file':
      return { ...common, type: 'String', list: false, nullable: field.nullable, unique: false, readonly: false, target: null, inverse: null };
    case 'toOne':
      return { ...common, type: field.target, list: false, nullable: field.nullable, unique: false, readonly: field.readonly, target: field.target, inverse: field.inverse ?? null };
    case 'toMany':
    case 'manyToMany':
      return { ...common, type: field.target, list: true, nullable: false, unique: false, readonly: false, target: field.target, inverse: field.inverse ?? null };
  }
}

/** The schema sources, each under its file name alone. */
export function sourcesOf(sources: readonly { readonly file: string; readonly text: string }[]): SchemaView['sdl'] {
  return sources.map((source) => ({ file: basename(source.file), text: source.text }));
}
