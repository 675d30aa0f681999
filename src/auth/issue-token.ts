import { SignJWT } from 'jose';

/**
 * An HS256 token for `claims`, valid for `lifetimeSeconds`: the member token
 * `diglot start` prints, and tests. Real deployments get their tokens from
 * their identity provider.
 */
export function issueToken(secret: string, claims: Readonly<Record<string, unknown>>, lifetimeSeconds: number): Promise<string> {
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(`${lifetimeSeconds}s`)
    .sign(new TextEncoder().encode(secret));
}
