import { describe, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../errors/registry.js';
import type { FormattedError } from './format-error.js';
import { retryAfterHeader } from './retry-after.js';

const error = (code: string): FormattedError => ({ message: code, extensions: { code } });

describe('retryAfterHeader', () => {
  it('adds nothing for errors retrying will not fix', () => {
    expect(retryAfterHeader([])).toEqual({});
    expect(retryAfterHeader([error('NOT_FOUND'), error('QUERY_INVALID_FILTER'), error('SOMETHING_UNREGISTERED')])).toEqual({});
  });

  it('takes the seconds from the registry, the longest wait of all the outages', () => {
    expect(retryAfterHeader([error('NOT_FOUND'), error('DATABASE_TIMEOUT')])).toEqual({ 'retry-after': String(ERROR_REGISTRY.DATABASE_TIMEOUT.retryAfter) });
    const longest = Math.max(ERROR_REGISTRY.DATABASE_TIMEOUT.retryAfter, ERROR_REGISTRY.DATABASE_UNAVAILABLE.retryAfter);
    expect(retryAfterHeader([error('DATABASE_TIMEOUT'), error('DATABASE_UNAVAILABLE')])).toEqual({ 'retry-after': String(longest) });
  });
});
