import type { Model } from '../../schema/model.js';
import { resolveField } from '../../schema/renamed.js';

/**
 * The most precise model coordinate for a path of names: `Type.field` when
 * the type has that field (by its current name, when `member` is the old
 * one `@renamed` keeps), `Enum.VALUE` for an enum's value, else the type.
 */
export function modelCoordinate(model: Model, parts: readonly string[]): string {
  const [typeName = '', member] = parts;
  if (member === undefined) return typeName;
  const type = model.typesByName.get(typeName);
  if (type !== undefined) {
    const field = resolveField(type, member)?.field;
    return field === undefined ? typeName : `${typeName}.${field.name}`;
  }
  const values = model.enums.get(typeName)?.values;
  if (values !== undefined) return values.includes(member) ? `${typeName}.${member}` : typeName;
  return parts.join('.');
}
