import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from './node-version.js';

describe('nodeVersionProblem', () => {
  it('accepts 22 and later', () => {
    for (const version of ['v22.0.0', 'v24.21.0', 'v26.1.0']) expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it('names the running version and two ways out for older ones', () => {
    const message = nodeVersionProblem('v20.20.2') ?? '';
    expect(message).toContain('this is v20.20.2');
    expect(message).toContain('npm install --save-dev node@24');
    expect(nodeVersionProblem('v18.0.0')).toBeDefined();
  });
});
