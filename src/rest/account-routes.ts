import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountRequestOf, type AccountRequest, type Accounts, type Session } from '../auth/accounts/accounts.js';
import { contextOf } from '../auth/request-principal.js';
import type { Engine } from '../engine/engine.js';
import { ApiError } from '../errors/api-error.js';
import { markDeprecated } from './deprecation-headers.js';
import { methodNotAllowed } from './route-helpers.js';

/**
 * Sign-up, sign-in and tokens under `/auth/…`: each route reads its JSON
 * body and calls the one accounts implementation GraphQL's mutations call
 * too (src/auth/accounts/), so both styles answer alike. Sessions are sent
 * with `Cache-Control: no-store` (RFC 6749 §5.1).
 */
export function registerAccountRoutes(app: FastifyInstance, accounts: Accounts, options: { readonly engine: Pick<Engine, 'deprecationUsage'> }): void {
  const identifier = accounts.account.identifier;
  const route = (path: string, handler: (body: Readonly<Record<string, unknown>>, request: AccountRequest, reply: FastifyReply) => Promise<unknown>): void => {
    app.post(path, async (request, reply) => {
      // A flow's write that uses deprecated things (a sign-up naming an old field) is told as every REST write is, before it runs.
      const flowRequest = accountRequestOf(contextOf(request), (uses) => markDeprecated(options, reply, uses));
      const answer = await handler(bodyOf(request), flowRequest, reply);
      if (answer === undefined) return reply.code(reply.statusCode === 200 ? 204 : reply.statusCode).header('cache-control', 'no-store').send();
      return reply.header('cache-control', 'no-store').type('application/json').send(JSON.stringify(answer));
    });
    methodNotAllowed(app, path, ['POST']);
  };
  const session = (value: Session): Session => value;

  route('/auth/sign-up', async (body, request, reply) => {
    const { password, ...input } = body;
    reply.code(201);
    return session(await accounts.signUp(input, password, request));
  });
  route('/auth/sign-in', async (body, request) => session(await accounts.signIn(body[identifier], body['password'], request)));
  route('/auth/refresh', async (body, request) => session(await accounts.refresh(body['refreshToken'], request)));
  route('/auth/sign-out', async (body, request) => accounts.signOut(body['refreshToken'], request));
  route('/auth/sign-out-everywhere', async (_body, request) => accounts.signOutEverywhere(request));
  route('/auth/change-password', async (body, request) => accounts.changePassword(body['currentPassword'], body['newPassword'], request));
  route('/auth/password-reset/request', async (body, request, reply) => {
    await accounts.requestPasswordReset(body[identifier], request);
    // Accepted whether or not the account exists: the answer tells nothing.
    reply.code(202);
  });
  route('/auth/password-reset/confirm', async (body, request) => accounts.confirmPasswordReset(body['token'], body['password'], request));
  route('/auth/verify-email/request', async (_body, request, reply) => {
    await accounts.requestEmailVerification(request);
    reply.code(202);
  });
  route('/auth/verify-email/confirm', async (body, request) => accounts.confirmEmailVerification(body['token'], request));

  const jwks = accounts.keys.jwks();
  if (jwks !== undefined) {
    // Where identity providers conventionally serve their keys; public keys only, so any cache may keep it a while.
    app.get('/.well-known/jwks.json', (_request, reply) => reply.header('cache-control', 'public, max-age=300').type('application/jwk-set+json').send(JSON.stringify(jwks)));
    methodNotAllowed(app, '/.well-known/jwks.json', ['GET', 'HEAD']);
  }
}

/** The JSON object sent (an empty body is an empty object: some routes need nothing). */
function bodyOf(request: FastifyRequest): Readonly<Record<string, unknown>> {
  const body: unknown = request.body;
  if (body === undefined || body === null || body === '') return {};
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', { detail: 'Send application/json' });
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError('VALIDATION_FAILED', { detail: 'The body must be a JSON object' });
  return body as Readonly<Record<string, unknown>>;
}
