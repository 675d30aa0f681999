import { suggest } from '../util/suggest.js';
import type { TypeDraft } from './drafts.js';
import type { AccountType, ScalarField } from './model.js';
import type { DirectiveUse } from './read-directives.js';
import type { Roles } from './read-roles.js';
import type { ProblemList } from './schema-problem.js';

/**
 * The type marked `@account(identifier:, suspended:, verified:)`, checked:
 * one type at most; the identifier a unique, required, single String; the
 * suspension flag any single stored value; the verification flag a Boolean.
 * The account's role is its field of the `@roles` enum, when it has one.
 */
export function readAccount(drafts: readonly TypeDraft[], roles: Roles, problems: ProblemList): AccountType | undefined {
  let found: AccountType | undefined;
  let first: string | undefined;
  for (const draft of drafts) {
    const use = draft.account;
    if (use === undefined) continue;
    if (first !== undefined) {
      problems.at(use.node, 'SCHEMA_BAD_ACCOUNT', `Only one type is the account type: "${first}" is marked @account already.`);
      continue;
    }
    first = draft.name;
    const scalars = new Map<string, ScalarField>();
    for (const field of draft.fields) if (field.kind === 'stored' && field.field.kind === 'scalar') scalars.set(field.field.name, field.field);
    const identifier = fieldOf(draft, use, 'identifier', scalars, problems, (field) =>
      field.scalar === 'String' && field.enum === undefined && !field.list && !field.nullable && field.unique ? undefined : 'a required, @unique String field',
    );
    const suspended = fieldOf(draft, use, 'suspended', scalars, problems, (field) => (field.list || field.auto === 'id' ? 'a single stored value' : undefined));
    const verified = fieldOf(draft, use, 'verified', scalars, problems, (field) => (field.scalar === 'Boolean' && !field.list ? undefined : 'a Boolean field'));
    const role = roles.set === undefined ? undefined : [...scalars.values()].find((field) => field.enum === roles.set?.enum && !field.list)?.name;
    if (identifier !== undefined) found = { type: draft.name, identifier, role, suspended, verified };
  }
  return found;
}

/** The field an argument names, if it is one that can serve (`needs` says what it must be, or undefined when it fits). */
function fieldOf(
  draft: TypeDraft,
  use: DirectiveUse,
  argument: string,
  scalars: ReadonlyMap<string, ScalarField>,
  problems: ProblemList,
  needs: (field: ScalarField) => string | undefined,
): string | undefined {
  const name = use.values[argument];
  if (typeof name !== 'string') return undefined;
  const node = use.argumentNodes.get(argument) ?? use.node;
  const field = scalars.get(name);
  if (field === undefined) {
    problems.at(node, 'SCHEMA_BAD_ACCOUNT', `@account(${argument}:) names "${name}", which is not a stored field of ${draft.name}.`, suggest(name, [...scalars.keys()]));
    return undefined;
  }
  const wanted = needs(field);
  if (wanted !== undefined) {
    problems.at(node, 'SCHEMA_BAD_ACCOUNT', `@account(${argument}:) must name ${wanted}; "${draft.name}.${name}" is not one.`);
    return undefined;
  }
  return name;
}
