import { suggest } from '../util/suggest.js';
import type { Declarations } from './collect-definitions.js';
import type { RoleSet } from './rules.js';
import { locate, type ProblemList } from './schema-problem.js';

/** The role enum, if any, and whether one was marked at all (so a broken `@roles` is not also reported as missing). */
export interface Roles {
  readonly set: RoleSet | undefined;
  readonly marked: boolean;
}

/**
 * Finds the enum marked `@roles(admin:)`: at most one enum may be, once,
 * and `admin` must be one of its values (written as a string, since a
 * directive argument cannot be typed by the user's own enum).
 */
export function readRoles(declarations: Declarations, problems: ProblemList): Roles {
  let set: RoleSet | undefined;
  let first: { readonly enumName: string; readonly where: string } | undefined;
  for (const declaration of declarations.enums.values()) {
    for (const use of declaration.roles) {
      if (first !== undefined) {
        const code = first.enumName === declaration.name ? 'SCHEMA_DUPLICATE_DIRECTIVE' : 'SCHEMA_CONFLICTING_DIRECTIVES';
        problems.at(use.node, code, `Only one enum holds the roles, once: "${first.enumName}" is marked @roles already (${first.where}).`);
        continue;
      }
      const where = locate(use.node);
      first = { enumName: declaration.name, where: `${where.file}:${where.line}:${where.column}` };
      const values = declaration.values.map((value) => value.name.value);
      const admin = String(use.values['admin']);
      if (!values.includes(admin)) {
        problems.at(
          use.argumentNodes.get('admin') ?? use.node,
          'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
          `@roles(admin:) must name a value of enum ${declaration.name} (${values.join(', ')}); "${admin}" is not one.`,
          suggest(admin, values),
        );
        continue;
      }
      set = { enum: declaration.name, values, admin };
    }
  }
  return { set, marked: first !== undefined };
}
