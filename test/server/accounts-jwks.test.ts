import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * With a private signing key, Diglot's access tokens verify for any other
 * service from the JWKS document alone, and Diglot accepts them itself.
 */
describeEachDialect('Accounts signing with a private key, its public half at /.well-known/jwks.json', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: false,
      server: { accounts: { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 }, signingPrivateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('signs tokens that verify against the JWKS, and that the server accepts', async () => {
    const signedUp = await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Kid', email: 'kid@example.com', password: 'an ed25519 signed session' } });
    expect(signedUp.status).toBe(201);
    const token = signedUp.json.accessToken as string;
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'EdDSA', kid: expect.stringMatching(/^diglot-/) });
    const jwks = await http(server.url, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.text).not.toMatch(/"d"/);
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.json as JSONWebKeySet), { issuer: 'diglot' });
    expect(payload.sub).toBe(signedUp.json.accountId);
    const me = await http(server.url, 'GET', '/me', { headers: { authorization: `Bearer ${token}` } });
    expect(me.json.email).toBe('kid@example.com');
  });
});
