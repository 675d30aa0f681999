import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputObjectType,
} from 'graphql';
import type { ResourceType } from '../../schema/model.js';
import type { AccountAction, RootRole } from './roles.js';
import type { SchemaContext } from './schema-context.js';

/** The type a session-giving mutation answers: its fields are those REST's `/auth/…` routes send, plus the account itself. */
export const SESSION_TYPE = 'AuthSession';

/**
 * `me` and the accounts mutations, for the type marked `@account`: the
 * same flows as REST's `/auth/…` routes, with the same arguments by name.
 */
export function addAccountFields(
  ctx: SchemaContext,
  type: ResourceType,
  identifier: string,
  createInput: GraphQLInputObjectType | undefined,
  query: { fields: GraphQLFieldConfigMap<unknown, unknown>; roles: Map<string, RootRole> },
  mutation: { fields: GraphQLFieldConfigMap<unknown, unknown>; roles: Map<string, RootRole> },
): void {
  const account = ctx.objectType(type.name);
  query.fields['me'] = { type: account, description: `The ${type.name} the caller is signed in as (as ${type.plural}(id) would read it); an error for a caller who is not.` };
  query.roles.set('me', { kind: 'me', type });

  const text = { type: new GraphQLNonNull(GraphQLString) };
  const session = new GraphQLObjectType({
    name: SESSION_TYPE,
    description: 'A signed-in session: a short-lived access token to send as Authorization: Bearer, and a refresh token to get the next one.',
    fields: {
      accessToken: { ...text, description: 'A JWT; send it as Authorization: Bearer <accessToken>.' },
      tokenType: { ...text, description: 'Always Bearer.' },
      expiresIn: { type: new GraphQLNonNull(GraphQLInt), description: 'Seconds the access token lives.' },
      refreshToken: { ...text, description: 'Single use: refreshSession answers a new one; using one twice ends the session.' },
      refreshExpiresIn: { type: new GraphQLNonNull(GraphQLInt), description: 'Seconds the refresh token lives.' },
      accountId: { type: new GraphQLNonNull(GraphQLID) },
      account: { type: new GraphQLNonNull(account), description: `The ${type.name} signed in, read as they may read it.` },
    },
  });
  const add = (name: AccountAction, args: GraphQLFieldConfigArgumentMap, answers: 'session' | 'done', description: string): void => {
    mutation.fields[name] = { type: new GraphQLNonNull(answers === 'session' ? session : GraphQLBoolean), args, description };
    mutation.roles.set(name, { kind: 'account', type, action: name, session: answers === 'session' });
  };
  const signUpArgs: GraphQLFieldConfigArgumentMap = createInput === undefined ? { password: text } : { input: { type: new GraphQLNonNull(createInput) }, password: text };
  add('signUp', signUpArgs, 'session', `Creates a ${type.name} (if its create rule allows the caller) with a password, and signs in.`);
  add('signIn', { [identifier]: text, password: text }, 'session', `Signs in with ${identifier} and password.`);
  add('refreshSession', { refreshToken: text }, 'session', 'Trades a refresh token for a new session (the token is used up).');
  add('signOut', { refreshToken: text }, 'done', 'Ends the session of this refresh token.');
  add('signOutEverywhere', {}, 'done', "Ends every session of the caller's account.");
  add('changePassword', { currentPassword: text, newPassword: text }, 'done', "Changes the caller's password; their other sessions end.");
  add('requestPasswordReset', { [identifier]: text }, 'done', 'Emits account.password_reset_requested with a reset link, if the account exists (the answer is the same either way).');
  add('resetPassword', { token: text, password: text }, 'done', 'Sets a new password with the token of a reset link; every session ends.');
  add('requestEmailVerification', {}, 'done', "Emits account.verification_requested with a link for the caller's account.");
  add('verifyEmail', { token: text }, 'done', 'Marks the account of a verification link verified.');
}
