import { randomBytes } from 'node:crypto';
import { hashCredential } from './credential-hash.js';

/** Every API key starts so: recognisable in a leaked file (secret scanners) and told from a JWT without parsing it. */
export const API_KEY_PREFIX = 'dk_';

/** The prefix, then 32 random bytes in base64url (43 characters). */
const API_KEY_SHAPE = /^dk_[A-Za-z0-9_-]{43}$/;

/** A new API key, to be shown once, and the hash that is all the database keeps of it. */
export function generateApiKey(): { readonly key: string; readonly hash: string } {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashCredential(key) };
}

export function isApiKeyShape(token: string): boolean {
  return API_KEY_SHAPE.test(token);
}

/** What an API key's name and role may be: short, printable, and never mistaken for a flag. */
export const API_KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A GraphQL enum value name, as the schema's role enum has them. */
export const ROLE_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
