/**
 * How one option's value is read from each of its three sources: a flag or
 * an environment variable (text), or a key of the configuration file (JSON).
 * A kind parses the text and checks the JSON, so all three end as the same
 * typed value, refused with the same sentence when it is wrong.
 */
export interface OptionKind<T> {
  /** What `--help` and the configuration template show after the flag: `<ms>`, `<origins>`. */
  readonly placeholder: string | undefined;
  fromText(text: string): T;
  fromJson(value: unknown): T;
  /** The value as the configuration template writes it. */
  toJson(value: T): unknown;
}

/** A value that fails its kind's check; the message completes "--flag / KEY: …". */
export class OptionValueError extends Error {}

export function text(placeholder: string, check?: (value: string) => string | undefined): OptionKind<string> {
  const checked = (value: string): string => {
    const problem = check?.(value);
    if (problem !== undefined) throw new OptionValueError(problem);
    return value;
  };
  return {
    placeholder,
    fromText: checked,
    fromJson: (value) => {
      if (typeof value !== 'string') throw new OptionValueError(`must be a string, got ${describeJson(value)}`);
      return checked(value);
    },
    toJson: (value) => value,
  };
}

export function integer(placeholder: string, min: number, max: number, unit: string): OptionKind<number> {
  const checked = (value: number): number => {
    if (!Number.isInteger(value) || value < min || value > max) throw new OptionValueError(`must be a whole number of ${unit} from ${min} to ${max}`);
    return value;
  };
  return {
    placeholder,
    fromText: (value) => checked(value.trim() === '' ? NaN : Number(value)),
    fromJson: (value) => {
      if (typeof value !== 'number') throw new OptionValueError(`must be a number, got ${describeJson(value)}`);
      return checked(value);
    },
    toJson: (value) => value,
  };
}

export const port = integer('<n>', 0, 65535, 'a port');

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off', '']);

/** A switch: a bare flag turns it on; the environment says true/false (or 1/0, yes/no, on/off). */
export const flag: OptionKind<boolean> = {
  placeholder: undefined,
  fromText: (value) => {
    const lower = value.trim().toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    throw new OptionValueError(`must be true or false, got ${JSON.stringify(value)}`);
  },
  fromJson: (value) => {
    if (typeof value !== 'boolean') throw new OptionValueError(`must be true or false, got ${describeJson(value)}`);
    return value;
  },
  toJson: (value) => value,
};

/** A list: comma-separated in a flag or the environment, an array of strings in the file. */
export function list(placeholder: string, check?: (item: string) => string | undefined): OptionKind<readonly string[]> {
  const checked = (items: readonly string[]): readonly string[] => {
    for (const item of items) {
      const problem = check?.(item);
      if (problem !== undefined) throw new OptionValueError(problem);
    }
    return Object.freeze([...items]);
  };
  return {
    placeholder,
    fromText: (value) => checked(value.split(',').map((item) => item.trim()).filter((item) => item !== '')),
    fromJson: (value) => {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        throw new OptionValueError(`must be an array of strings, got ${describeJson(value)}`);
      }
      return checked(value);
    },
    toJson: (value) => [...value],
  };
}

export function oneOf<const T extends string>(placeholder: string, values: readonly T[]): OptionKind<T> {
  const checked = (value: string): T => {
    if (!(values as readonly string[]).includes(value)) throw new OptionValueError(`must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
    return value as T;
  };
  return {
    placeholder,
    fromText: checked,
    fromJson: (value) => {
      if (typeof value !== 'string') throw new OptionValueError(`must be one of ${values.join(', ')}, got ${describeJson(value)}`);
      return checked(value);
    },
    toJson: (value) => value,
  };
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value);
}
