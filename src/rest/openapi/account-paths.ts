import type { Model } from '../../schema/model.js';
import { PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { ComponentNames } from './component-names.js';
import { ref, type JsonSchema, type PathItem, type Response } from './openapi-types.js';
import { anyCaller } from './security-schemes.js';

export const ACCOUNTS_TAG = 'Accounts';
export const SESSION_SCHEMA = 'AuthSession';

/** What a body of the accounts routes holds: each member a string. */
type Members = Readonly<Record<string, string>>;

/**
 * `/auth/…` and `/me`, for the type marked `@account` (rest/account-routes.ts):
 * the same flows GraphQL's accounts mutations run, with their own codes.
 */
export function accountPaths(model: Model, names: ComponentNames): { readonly paths: Record<string, PathItem>; readonly schemas: Record<string, JsonSchema> } {
  const account = model.account;
  const type = account === undefined ? undefined : model.typesByName.get(account.type);
  if (account === undefined || type === undefined) return { paths: {}, schemas: {} };
  const identifier = account.identifier;
  const problem = (codes: string, why: string): Response => ({ description: `${why} Codes: ${codes}.`, content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', names.problem) } } });
  const unauthenticated = ref('responses', 'Unauthenticated');
  // A bad credential is refused on every route, these too; where a flow has 401s of its own, one response says both.
  const refused = (codes: string, why: string): Response =>
    problem(`UNAUTHENTICATED, ${codes}`, `The credential in \`Authorization\` was refused (UNAUTHENTICATED, with \`WWW-Authenticate\`), or ${why}`);
  const common = {
    '401': unauthenticated,
    '415': ref('responses', 'UnsupportedMediaType'),
    '429': problem('RATE_LIMITED', 'Too many attempts from this address or for this account: wait `Retry-After` seconds.'),
    '503': ref('responses', 'ServiceUnavailable'),
  };
  const session: Response = {
    description: 'A session: send `accessToken` as `Authorization: Bearer …`; trade `refreshToken` (single use) for the next session at /auth/refresh.',
    headers: { 'Cache-Control': ref('headers', 'Cache-Control') },
    content: { 'application/json': { schema: ref('schemas', SESSION_SCHEMA) } },
  };
  const done = (status: '202' | '204', description: string): Record<string, Response> => ({ [status]: { description } });
  const body = (members: Members, extra?: JsonSchema): JsonSchema =>
    extra ?? { type: 'object', properties: Object.fromEntries(Object.entries(members).map(([name, description]) => [name, { type: 'string', description }])), required: Object.keys(members) };
  const post = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
    members: Members | undefined,
    responses: Record<string, Response | ReturnType<typeof ref>>,
    schema?: JsonSchema,
  ): [string, PathItem] => [
    path,
    {
      post: {
        operationId,
        summary,
        description,
        tags: [ACCOUNTS_TAG],
        security: anyCaller(),
        ...(members === undefined ? {} : { requestBody: { description: 'As JSON.', required: true, content: { 'application/json': { schema: body(members, schema) } } } }),
        responses: { ...common, ...responses },
      },
    },
  ];
  const weak = problem('WEAK_PASSWORD, VALIDATION_FAILED', 'The password is shorter than 8 characters, longer than 256, the identifier itself or among the most common ones; or a member is missing.');
  const password = 'At least 8 characters, not a common password.';
  const signUp: JsonSchema = {
    allOf: [ref('schemas', names.create(type.name)), { type: 'object', properties: { password: { type: 'string', minLength: 8, description: password } }, required: ['password'] }],
  };
  const paths = Object.fromEntries([
    post('/auth/sign-up', 'signUp', `Sign up as a new ${type.name}`, `Creates a ${type.name} (if its create rule lets the caller) with a password, and signs in.`, {}, {
      '201': session,
      '400': weak,
      '403': problem('FORBIDDEN, FIELD_FORBIDDEN', `The ${type.name} create rule does not let this caller sign up so.`),
      '409': ref('responses', 'Conflict'),
    }, signUp),
    post('/auth/sign-in', 'signIn', 'Sign in', `Signs in with ${identifier} and password. A wrong ${identifier} and a wrong password get the same answer.`, { [identifier]: `The account's ${identifier}.`, password: 'The password.' }, {
      '200': session,
      '400': problem('VALIDATION_FAILED', 'A member is missing.'),
      '401': refused('INVALID_CREDENTIALS', `the ${identifier} or the password is wrong.`),
      '403': problem('ACCOUNT_SUSPENDED', 'The account is suspended.'),
    }),
    post('/auth/refresh', 'refreshSession', 'Refresh a session', 'Trades a refresh token for a new session; using a token twice ends every session of its sign-in.', { refreshToken: 'The refresh token of the last session.' }, {
      '200': session,
      '401': refused('REFRESH_TOKEN_INVALID, REFRESH_TOKEN_REUSED', 'the refresh token is unknown, expired, revoked or already used.'),
      '403': problem('ACCOUNT_SUSPENDED', 'The account is suspended.'),
    }),
    post('/auth/sign-out', 'signOut', 'Sign out', 'Ends the session of this refresh token (its access token lives on until it expires).', { refreshToken: 'The refresh token of the session.' }, done('204', 'Signed out.')),
    post('/auth/sign-out-everywhere', 'signOutEverywhere', 'Sign out everywhere', "Ends every session of the caller's account.", undefined, done('204', 'Every session ended.')),
    post('/auth/change-password', 'changePassword', 'Change the password', "Changes the caller's password; their other sessions end.", { currentPassword: 'The password now.', newPassword: password }, {
      ...done('204', 'Changed.'),
      '400': weak,
      '401': refused('INVALID_CREDENTIALS', 'the caller is not signed in, or the current password is wrong.'),
    }),
    post('/auth/password-reset/request', 'requestPasswordReset', 'Ask for a password reset', 'Emits `account.password_reset_requested` with a single-use link, if the account exists; the answer is the same either way.', { [identifier]: `The account's ${identifier}.` }, done('202', 'Accepted.')),
    post('/auth/password-reset/confirm', 'resetPassword', 'Reset the password', 'Sets a new password with the token of a reset link; every session ends.', { token: 'The token of the reset link.', password }, {
      ...done('204', 'Reset.'),
      '400': problem('WEAK_PASSWORD, ONE_TIME_TOKEN_INVALID, VALIDATION_FAILED', 'The password is too weak, or the token unknown, used or expired.'),
    }),
    post('/auth/verify-email/request', 'requestEmailVerification', 'Ask for email verification', "Emits `account.verification_requested` with a single-use link for the caller's account.", undefined, done('202', 'Accepted.')),
    post('/auth/verify-email/confirm', 'verifyEmail', 'Verify the email', 'Marks the account of a verification link verified.', { token: 'The token of the verification link.' }, {
      ...done('204', 'Verified.'),
      '400': problem('ONE_TIME_TOKEN_INVALID, VALIDATION_FAILED', 'The token is unknown, used or expired.'),
    }),
  ]);
  paths['/me'] = {
    get: {
      operationId: 'getMe',
      summary: `The caller's own ${type.name}`,
      description: `As GET /${type.path}/<the caller's id>, with the same query parameters, rules and caching.`,
      tags: [ACCOUNTS_TAG],
      security: anyCaller(),
      responses: {
        '200': { description: `The caller's ${type.name}.`, headers: { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') }, content: { 'application/json': { schema: ref('schemas', names.record(type.name)) } } },
        '401': unauthenticated,
        '503': ref('responses', 'ServiceUnavailable'),
      },
    },
  };
  const sessionSchema: JsonSchema = {
    type: 'object',
    description: 'A signed-in session.',
    properties: {
      accessToken: { type: 'string', description: 'A JWT (HS256, `kid` in its header); send it as `Authorization: Bearer …`.' },
      tokenType: { type: 'string', enum: ['Bearer'] },
      expiresIn: { type: 'integer', description: 'Seconds the access token lives.' },
      refreshToken: { type: 'string', description: 'Single use: /auth/refresh answers the next one.' },
      refreshExpiresIn: { type: 'integer', description: 'Seconds the refresh token lives.' },
      accountId: { type: 'string' },
    },
    required: ['accessToken', 'tokenType', 'expiresIn', 'refreshToken', 'refreshExpiresIn', 'accountId'],
  };
  return { paths, schemas: { [SESSION_SCHEMA]: sessionSchema } };
}
