import type { Model } from '../../schema/model.js';

/**
 * Names of the generated schema components. Types and enums keep their SDL
 * names; the derived schemas get a suffix (`UserCreate`, `UserList`). The
 * user's schema could already hold a type called `UserList` or `Problem`:
 * then the derived name takes a dot (`User.List`, `Diglot.Problem`), which
 * no GraphQL name can contain, so the two can never collide.
 */
export interface ComponentNames {
  readonly record: (type: string) => string;
  readonly create: (type: string) => string;
  readonly patch: (type: string) => string;
  /** The multipart/form-data body of POST and PUT for types with file fields. */
  readonly form: (type: string) => string;
  readonly list: (type: string) => string;
  readonly filter: (type: string) => string;
  readonly problem: string;
  readonly problemItem: string;
  readonly errorCode: string;
}

export function componentNames(model: Model): ComponentNames {
  const sdlNames = new Set<string>([...model.types.map((type) => type.name), ...model.enums.keys()]);
  const derived = (base: string, suffix: string): string => (sdlNames.has(`${base}${suffix}`) ? `${base}.${suffix}` : `${base}${suffix}`);
  const own = (name: string): string => (sdlNames.has(name) ? `Diglot.${name}` : name);
  return {
    record: (type) => type,
    create: (type) => derived(type, 'Create'),
    patch: (type) => derived(type, 'Patch'),
    form: (type) => derived(type, 'Form'),
    list: (type) => derived(type, 'List'),
    filter: (type) => derived(type, 'Filter'),
    problem: own('Problem'),
    problemItem: own('ProblemItem'),
    errorCode: own('ErrorCode'),
  };
}
