// The signed-in caller of the authenticated workloads (W1a, W4a): an HS256
// JWT for a member, signed with a secret made for this run and given to the
// Diglot peers that serve the example's rules (DIGLOT_JWT_SECRET). Signed
// here with node:crypto, as any issuer would (RFC 7519), so the bench needs
// no JWT library.

import { createHmac, randomBytes } from 'node:crypto';

/** The run's secret: 32 random bytes, as the server asks of an HMAC key. */
export const JWT_SECRET = randomBytes(32).toString('base64url');

/** The member the demo signs a token for (`diglot start`): user 42, role MEMBER. */
export const MEMBER = { id: '42', role: 'MEMBER' };

const part = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token for `sub` valid for `hours` (a full run lasts under an hour), signed with `secret`. */
export function memberToken({ sub = MEMBER.id, role = MEMBER.role, secret = JWT_SECRET, hours = 6 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const signed = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, role, iat: now, exp: now + hours * 3600 })}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url')}`;
}

/** The header a member's request carries. */
export const memberAuthorization = (token = memberToken()) => ({ authorization: `Bearer ${token}` });
