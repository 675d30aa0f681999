import type { Model } from '../schema/model.js';

/** The role whose holders may do everything: the schema's `@roles(admin: …)`, or `ADMIN` in a schema without a role enum. */
export function adminRoleOf(model: Model): string {
  return model.roles?.admin ?? 'ADMIN';
}
