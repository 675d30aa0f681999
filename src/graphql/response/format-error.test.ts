import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors/api-error.js';
import { formatError, withoutSuggestions } from './format-error.js';

function options(hideSuggestions = false): { logged: object[]; hideSuggestions: boolean; exposeInternals: boolean; log: { error(details: object): void } } {
  const logged: object[] = [];
  return { logged, hideSuggestions, exposeInternals: false, log: { error: (details) => logged.push(details) } };
}

describe('formatError', () => {
  it('keeps an ApiError code, detail and per-item problems', () => {
    const error = new ApiError('INPUT_REQUIRED_FIELD', { detail: 'name is required', errors: [{ pointer: '/name', code: 'INPUT_REQUIRED_FIELD', detail: 'name is required' }] });
    expect(formatError(error, options(), { path: ['createUser'] })).toEqual({
      message: 'name is required',
      path: ['createUser'],
      extensions: { code: 'INPUT_REQUIRED_FIELD', errors: [{ pointer: '/name', code: 'INPUT_REQUIRED_FIELD', detail: 'name is required' }] },
    });
  });

  it('masks unknown failures as INTERNAL with an error id that is logged, never the message or stack', () => {
    const opts = options();
    const formatted = formatError(new Error('SELECT * FROM secrets failed'), opts, { path: ['users'] });
    expect(formatted.extensions.code).toBe('INTERNAL');
    const errorId = formatted.extensions['errorId'] as string;
    expect(formatted.message).toBe(`Something went wrong on our side; quote error id ${errorId}`);
    expect(JSON.stringify(formatted)).not.toContain('SELECT');
    expect(opts.logged).toEqual([expect.objectContaining({ errorId })]);
  });

  it('hides suggestions when asked', () => {
    const error = new GraphQLError('Cannot query field "nmae" on type "User". Did you mean "name"?', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(formatError(error, options(true)).message).toBe('Cannot query field "nmae" on type "User".');
    expect(formatError(error, options(false)).message).toContain('Did you mean');
    expect(withoutSuggestions('Unknown argument "frist". Did you mean "first" or "last"?')).toBe('Unknown argument "frist".');
  });
});
