import { describe, expect, it } from 'vitest';
import { formatProblems, loadSchema } from './load-schema.js';

function load(text: string) {
  return loadSchema([{ file: 'schema.graphql', text }]);
}

const ROLES = 'enum Role @roles(admin: "ADMIN") { MEMBER ADMIN }\n';

describe('@account', () => {
  it('marks the account type, its identifier, suspension and verification fields, and finds its role field', () => {
    const result = load(`${ROLES}type User @account(identifier: "email", suspended: "banned", verified: "checked") {
  id: ID!
  email: String! @unique
  banned: Boolean
  checked: Boolean! @default(value: false)
  role: Role! @default(value: MEMBER)
}`);
    if (!result.ok) expect.fail(formatProblems(result.problems));
    expect(result.model.account).toEqual({ type: 'User', identifier: 'email', role: 'role', suspended: 'banned', verified: 'checked' });
  });

  it('is absent from a schema that marks no type', () => {
    const result = load('type Note { id: ID! text: String }');
    expect(result.ok && result.model.account).toBeUndefined();
  });

  it('reports every field that cannot serve, and a second account type, at file:line:column', () => {
    const result = load(`type User @account(identifier: "name", suspended: "nope", verified: "email") {
  id: ID!
  name: String
  email: String! @unique
}
type Admin @account(identifier: "login") {
  id: ID!
  login: String! @unique
}`);
    if (result.ok) expect.fail('expected problems');
    expect(formatProblems(result.problems).split('\n')).toEqual([
      'schema.graphql:1:32 SCHEMA_BAD_ACCOUNT @account(identifier:) must name a required, @unique String field; "User.name" is not one.',
      'schema.graphql:1:51 SCHEMA_BAD_ACCOUNT @account(suspended:) names "nope", which is not a stored field of User. (did you mean name?)',
      'schema.graphql:1:69 SCHEMA_BAD_ACCOUNT @account(verified:) must name a Boolean field; "User.email" is not one.',
      'schema.graphql:6:12 SCHEMA_BAD_ACCOUNT Only one type is the account type: "User" is marked @account already.',
    ]);
  });
});
