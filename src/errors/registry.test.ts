import { describe, expect, it } from 'vitest';
import { ERROR_REGISTRY, retryAfterOf, type ErrorEntry } from './registry.js';

describe('error registry', () => {
  const entries = Object.entries(ERROR_REGISTRY) as [string, ErrorEntry][];

  it('gives every 503 a Retry-After of whole seconds, and nothing else one', () => {
    for (const [code, entry] of entries) {
      if (entry.status === 503) {
        expect(Number.isInteger(entry.retryAfter) && (entry.retryAfter ?? 0) > 0, code).toBe(true);
      } else {
        expect(entry.retryAfter, code).toBeUndefined();
      }
    }
  });

  it('looks the seconds up by code, and knows none for unknown codes', () => {
    expect(retryAfterOf('DATABASE_UNAVAILABLE')).toBe(ERROR_REGISTRY.DATABASE_UNAVAILABLE.retryAfter);
    expect(retryAfterOf('NOT_FOUND')).toBeUndefined();
    expect(retryAfterOf('NO_SUCH_CODE')).toBeUndefined();
  });
});
