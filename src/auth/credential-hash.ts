import { hash } from 'node:crypto';

/**
 * sha256 of a credential, hex: the key of the verified-credential cache and
 * what the API key table stores. A plain hash suffices for what is hashed
 * here: keys and tokens are 256-bit random or signed, so there is nothing to
 * guess that a slow password hash would protect (NIST SP 800-63B §5.1.1.2
 * asks for one only for memorised secrets).
 */
export function hashCredential(credential: string): string {
  return hash('sha256', credential, 'hex');
}
