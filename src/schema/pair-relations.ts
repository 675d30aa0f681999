import { toSnakeCase } from '../util/naming.js';
import { suggest } from '../util/suggest.js';
import type { RelationDraft, TypeDraft } from './drafts.js';
import type { JoinTable, RelationField } from './model.js';
import type { ProblemList } from './schema-problem.js';

export interface PairedRelations {
  readonly fields: ReadonlyMap<RelationDraft, RelationField>;
  readonly joinTables: readonly JoinTable[];
}

type Choice =
  | { readonly kind: 'none' }
  | { readonly kind: 'one'; readonly partner: RelationDraft }
  | { readonly kind: 'ambiguous'; readonly among: readonly RelationDraft[] };

/**
 * Pairs every relation field with its inverse, once all types are known.
 *
 * 1. `@relation(inverse: "field")` pairs two fields explicitly (either side
 *    may say it; if both do, they must agree).
 * 2. Otherwise a list field `User.posts: [Post!]!` pairs with the one to-one
 *    field of Post that points at User (`Post.author`): a to-many read
 *    through `posts.author_id`.
 * 3. If Post has no such to-one, it pairs with the one list field of Post
 *    that points back (`Post.likedBy: [User!]!`), or for a self-relation the
 *    other list of the same type (`followers` ↔ `following`): a many-to-many
 *    through one join table, owned by the field declared first. A list that
 *    has a to-one to pair with by rule 2 is not a candidate here.
 * 4. A list with no candidate at all is a one-sided many-to-many with its
 *    own join table.
 *
 * Two candidates at one step, or two lists claiming one to-one, is
 * ambiguous and reported: guessing would silently join the wrong column.
 */
export function pairRelations(types: readonly TypeDraft[], problems: ProblemList): PairedRelations {
  const relations = types.flatMap((type) => type.fields.flatMap((field) => (field.kind === 'relation' ? [field.draft] : [])));
  const byOwner = new Map<string, RelationDraft[]>();
  for (const relation of relations) {
    const list = byOwner.get(relation.owner) ?? [];
    list.push(relation);
    byOwner.set(relation.owner, list);
  }
  const fieldNames = new Map(types.map((type) => [type.name, type.fields.map((field) => (field.kind === 'relation' ? field.draft.common.name : field.field.name))]));
  const partners = new Map<RelationDraft, RelationDraft>();
  // Fields whose pairing is decided (explicitly, or by a reported problem): never paired by guessing.
  const settled = new Set<RelationDraft>();
  const pair = (a: RelationDraft, b: RelationDraft): void => {
    partners.set(a, b);
    partners.set(b, a);
  };

  for (const relation of relations) {
    const hint = relation.inverseHint;
    if (hint === undefined) continue;
    settled.add(relation);
    const here = qualify(relation);
    const backwards = (byOwner.get(relation.target) ?? []).filter((other) => other.target === relation.owner);
    const inverse = (byOwner.get(relation.target) ?? []).find((other) => other.common.name === hint.name);
    if (inverse === undefined) {
      const exists = fieldNames.get(relation.target)?.includes(hint.name) ?? false;
      problems.at(
        hint.node,
        'SCHEMA_BAD_RELATION',
        exists
          ? `@relation on "${here}" names "${relation.target}.${hint.name}", which is not a relation field.`
          : `@relation on "${here}" names "${hint.name}", but "${relation.target}" has no such field.`,
        exists ? undefined : suggest(hint.name, backwards.map((other) => other.common.name)),
      );
      continue;
    }
    const there = qualify(inverse);
    let problem: string | undefined;
    if (inverse === relation) {
      problem = `"${here}" cannot be its own inverse.`;
    } else if (inverse.target !== relation.owner) {
      problem = `"${there}" points at ${inverse.target}, not at ${relation.owner}, so it cannot be the inverse of "${here}".`;
    } else if (!relation.list && !inverse.list) {
      problem = `"${here}" and "${there}" are both to-one relations; each keeps its own column, so neither is the other's inverse.`;
    } else if (inverse.inverseHint !== undefined && inverse.inverseHint.name !== relation.common.name) {
      problem = `"${here}" names "${there}" as its inverse, but "${there}" names "${inverse.inverseHint.name}".`;
    } else {
      const taken = partners.get(inverse);
      if (taken !== undefined && taken !== relation) problem = `"${there}" is already the inverse of "${qualify(taken)}".`;
    }
    if (problem !== undefined) {
      problems.at(hint.node, 'SCHEMA_BAD_RELATION', problem);
      continue;
    }
    settled.add(inverse);
    pair(relation, inverse);
  }

  const candidatesOf = (relation: RelationDraft): RelationDraft[] =>
    (byOwner.get(relation.target) ?? []).filter(
      (other) => other !== relation && other.target === relation.owner && !settled.has(other),
    );
  const choose = (relation: RelationDraft): Choice => {
    const candidates = candidatesOf(relation);
    const toOnes = candidates.filter((other) => !other.list);
    // A list that has a to-one to pair with (rule 2) is not free for rule 3.
    const lists = candidates.filter((other) => other.list && candidatesOf(other).every((back) => back.list));
    const step = toOnes.length > 0 ? toOnes : lists;
    const only = step[0];
    if (only === undefined) return { kind: 'none' };
    return step.length === 1 ? { kind: 'one', partner: only } : { kind: 'ambiguous', among: step };
  };

  const claims = new Map<RelationDraft, RelationDraft[]>();
  for (const relation of relations) {
    if (!relation.list || settled.has(relation) || partners.has(relation)) continue;
    const choice = choose(relation);
    if (choice.kind === 'none') continue;
    if (choice.kind === 'ambiguous') {
      problems.at(
        relation.nameNode,
        'SCHEMA_AMBIGUOUS_RELATION',
        `"${qualify(relation)}" could be the inverse of ${choice.among.map((other) => `"${qualify(other)}"`).join(' or ')}; say which with @relation(inverse: "...").`,
      );
      continue;
    }
    const partner = choice.partner;
    if (!partner.list) {
      const claimers = claims.get(partner) ?? [];
      claimers.push(relation);
      claims.set(partner, claimers);
      continue;
    }
    const back = choose(partner);
    if (back.kind === 'one' && back.partner === relation) {
      pair(relation, partner);
    } else if (back.kind === 'one') {
      problems.at(
        relation.nameNode,
        'SCHEMA_AMBIGUOUS_RELATION',
        `"${qualify(relation)}" would pair with "${qualify(partner)}", but that field pairs with "${qualify(back.partner)}"; say which with @relation(inverse: "...").`,
      );
    }
    // When `back` is ambiguous, the partner's own turn reports it.
  }
  for (const [toOne, claimers] of claims) {
    const [first, ...others] = claimers;
    if (first === undefined) continue;
    if (others.length === 0) {
      pair(first, toOne);
      continue;
    }
    for (const other of others) {
      problems.at(
        other.nameNode,
        'SCHEMA_AMBIGUOUS_RELATION',
        `"${qualify(other)}" and "${qualify(first)}" both pair with "${qualify(toOne)}"; give each its own inverse with @relation(inverse: "...").`,
      );
    }
  }

  return buildRelationFields(relations, partners);
}

function buildRelationFields(relations: readonly RelationDraft[], partners: ReadonlyMap<RelationDraft, RelationDraft>): PairedRelations {
  const fields = new Map<RelationDraft, RelationField>();
  const joinTables: JoinTable[] = [];
  for (const relation of relations) {
    const partner = partners.get(relation);
    if (!relation.list) {
      fields.set(relation, {
        kind: 'toOne',
        ...relation.common,
        target: relation.target,
        nullable: relation.nullable,
        column: relation.column,
        inverse: partner?.common.name,
        readonly: relation.readonly,
        defaultFromAuth: relation.defaultFromAuth,
        immutable: relation.immutable,
        onDelete: relation.onDelete,
      });
      continue;
    }
    if (partner !== undefined && !partner.list) {
      fields.set(relation, {
        kind: 'toMany',
        ...relation.common,
        target: relation.target,
        inverse: partner.common.name,
        foreignKey: partner.column,
      });
      continue;
    }
    // Many-to-many: the field declared first owns the join table and reads it from `source_id`.
    const owner = partner === undefined || relation.order < partner.order ? relation : partner;
    const joinTable = `${owner.ownerTable}_${toSnakeCase(owner.common.name)}`;
    const owns = owner === relation;
    if (owns) {
      joinTables.push({
        name: joinTable,
        sourceColumn: 'source_id',
        sourceType: owner.owner,
        targetColumn: 'target_id',
        targetType: owner.target,
      });
    }
    fields.set(relation, {
      kind: 'manyToMany',
      ...relation.common,
      target: relation.target,
      inverse: partner?.common.name,
      joinTable,
      ownColumn: owns ? 'source_id' : 'target_id',
      otherColumn: owns ? 'target_id' : 'source_id',
    });
  }
  return { fields, joinTables };
}

function qualify(relation: RelationDraft): string {
  return `${relation.owner}.${relation.common.name}`;
}
