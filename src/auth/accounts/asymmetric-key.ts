import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, errors, exportJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { ApiError } from '../../errors/api-error.js';
import type { SigningKeys } from './signing-keys.js';

/** The algorithm each kind of private key signs with. */
function algorithmOf(key: KeyObject): string {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'rsa') return 'RS256';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
  }
  throw new Error(`The signing key is a ${type ?? 'unknown'} key; Ed25519, P-256, P-384 and RSA keys are accepted`);
}

/**
 * Signing with a private key the operator gives (PEM, PKCS#8), so other
 * services can verify Diglot's tokens from the JWKS document at
 * `/.well-known/jwks.json`, without sharing a secret. The key id is the
 * public key's RFC 7638 thumbprint; rotating means giving another key.
 */
export async function asymmetricSigningKeys(pem: string, issuer: string, kidPrefix: string, accessTokenSeconds: number, now: () => number): Promise<SigningKeys> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`The signing key is not a PEM private key: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const alg = algorithmOf(privateKey);
  const publicKey = createPublicKey(privateKey);
  const publicJwk = await exportJWK(publicKey);
  const kid = `${kidPrefix}${await calculateJwkThumbprint(publicJwk)}`;
  const jwk: JWK = { ...publicJwk, kid, alg, use: 'sig' };
  return {
    sign: (claims, subject) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg, typ: 'JWT', kid })
        .setSubject(subject)
        .setIssuer(issuer)
        .setIssuedAt(Math.floor(now() / 1000))
        .setExpirationTime(Math.floor(now() / 1000) + accessTokenSeconds)
        .sign(privateKey),
    owns: () => false,
    verify: async (token, at) => {
      try {
        const { payload } = await jwtVerify(token, publicKey, { algorithms: [alg], issuer, currentDate: at, clockTolerance: 30 });
        return payload;
      } catch (error) {
        throw new ApiError('UNAUTHENTICATED', { detail: error instanceof errors.JWTExpired ? 'The token has expired' : 'The token does not verify' });
      }
    },
    rotate: () => Promise.reject(new Error('The signing key is given by the operator: give another one to rotate it')),
    jwks: () => ({ keys: [jwk] }),
  };
}
