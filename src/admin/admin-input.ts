import { ApiError, type ErrorDetail } from '../errors/api-error.js';

/**
 * Reads an admin action's input (a REST body, a GraphQL input object),
 * collecting every problem with its RFC 6901 pointer: `done()` throws one
 * 400 VALIDATION_FAILED listing them all, so a form can show each beside
 * its field.
 */
export class AdminInput {
  readonly #problems: ErrorDetail[] = [];
  readonly #body: Readonly<Record<string, unknown>>;

  constructor(body: unknown, allowed: readonly string[]) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ApiError('VALIDATION_FAILED', { detail: 'The body must be a JSON object', errors: [{ pointer: '', code: 'INPUT_WRONG_TYPE', detail: 'must be an object' }] });
    }
    this.#body = body as Record<string, unknown>;
    for (const key of Object.keys(this.#body)) {
      if (!allowed.includes(key)) this.problem(`/${escape(key)}`, 'INPUT_UNKNOWN_FIELD', `unknown member; allowed: ${allowed.join(', ')}`);
    }
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#body, name) && this.#body[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.#body[name];
  }

  problem(pointer: string, code: ErrorDetail['code'], detail: string): void {
    this.#problems.push({ pointer, code, detail });
  }

  /** A string matching `shape`, or undefined (and a problem) when it is absent and `required`, or not one. */
  text(name: string, options: { readonly required: boolean; readonly shape?: RegExp; readonly hint?: string; readonly max?: number }): string | undefined {
    const value = this.#body[name];
    if (value === undefined || value === null) {
      if (options.required) this.problem(`/${name}`, 'INPUT_REQUIRED_FIELD', 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.problem(`/${name}`, 'INPUT_WRONG_TYPE', 'must be a string');
      return undefined;
    }
    if ((options.shape !== undefined && !options.shape.test(value)) || value.length > (options.max ?? 10_000)) {
      this.problem(`/${name}`, 'VALIDATION_FAILED', options.hint ?? 'is not valid');
      return undefined;
    }
    return value;
  }

  /** A whole number from `min` to `max`, or undefined. */
  integer(name: string, min: number, max: number): number | undefined {
    const value = this.#body[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problem(`/${name}`, 'INPUT_WRONG_TYPE', `must be a whole number from ${min} to ${max}`);
      return undefined;
    }
    return value;
  }

  flag(name: string): boolean | undefined {
    const value = this.#body[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.problem(`/${name}`, 'INPUT_WRONG_TYPE', 'must be true or false');
      return undefined;
    }
    return value;
  }

  /** An ISO 8601 time, or undefined. */
  time(name: string, required: boolean): Date | undefined {
    const text = this.text(name, { required, hint: 'must be an ISO 8601 time, such as 2026-11-25T10:00:00Z' });
    if (text === undefined) return undefined;
    const time = new Date(text);
    if (Number.isNaN(time.getTime())) {
      this.problem(`/${name}`, 'INPUT_WRONG_TYPE', 'must be an ISO 8601 time, such as 2026-11-25T10:00:00Z');
      return undefined;
    }
    return time;
  }

  /** Throws 400 VALIDATION_FAILED with every problem found, if any. */
  done(): void {
    if (this.#problems.length === 0) return;
    const [first] = this.#problems;
    throw new ApiError('VALIDATION_FAILED', {
      detail: this.#problems.length === 1 && first !== undefined ? `${first.pointer || 'the body'} ${first.detail}` : `${this.#problems.length} problems with the input`,
      errors: [...this.#problems],
    });
  }
}

/** RFC 6901 §3: `~` and `/` in a member name. */
function escape(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
