import type { Model } from '../schema/model.js';

/**
 * The role whose holders may do everything: the schema's
 * `@roles(admin: …)` once the model has its role set (`Model.roles.admin`,
 * which will replace this function's body), `ADMIN` until then.
 */
export function adminRoleOf(_model: Model): string {
  return 'ADMIN';
}
