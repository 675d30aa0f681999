import type { Model, ResourceType, ScalarField, ToOneRelation } from '../../schema/model.js';
import { catalogueItem } from './demo-texts.js';
import type { Random } from './fake-values.js';

/**
 * Order lines planned before anything is written, so that each order's
 * total is the sum of its lines (quantity × unit price) and each line's
 * unit price is its product's price. A line-item type is recognised by its
 * shape: a to-one field to a type with a Float `total`, an Int `quantity`
 * and a Float price field (OrderItem in the example).
 */
export interface LineItemPlan {
  readonly type: string;
  readonly parentField: ToOneRelation;
  readonly productField: ToOneRelation | undefined;
  readonly quantityField: ScalarField;
  readonly priceField: ScalarField;
  /** Per line (index 0 is row 1): parent row, product row, quantity, unit price in cents. */
  readonly lines: readonly { readonly parent: number; readonly product: number | null; readonly quantity: number; readonly priceCents: number }[];
}

/** The sum of the lines of each parent row, in cents, by parent type: `totals.get('Order')?.get(7)`. */
export type Totals = ReadonlyMap<string, ReadonlyMap<number, number>>;

export function planLineItems(model: Model, counts: ReadonlyMap<string, number>, random: Random): { plans: Map<string, LineItemPlan>; totals: Totals } {
  const plans = new Map<string, LineItemPlan>();
  const totals = new Map<string, Map<number, number>>();
  for (const type of model.types) {
    const shape = lineItemShape(model, type);
    if (shape === undefined) continue;
    const parents = counts.get(shape.parentField.target) ?? 0;
    const products = shape.productField === undefined ? 0 : (counts.get(shape.productField.target) ?? 0);
    if (parents === 0) continue;
    const sums = totals.get(shape.parentField.target) ?? new Map<number, number>();
    totals.set(shape.parentField.target, sums);
    const lines = [];
    for (let index = 1; index <= (counts.get(type.name) ?? 0); index++) {
      // Every parent gets at least one line; the rest are spread at random.
      const parent = index <= parents ? index : 1 + Math.floor(parents * random.next());
      const product = products === 0 ? null : 1 + Math.floor(products * random.next() ** 2);
      const quantity = random.chance(0.7) ? 1 : random.int(2, 4);
      const priceCents = product === null ? random.int(5, 200) * 100 - 1 : catalogueItem(product).priceCents;
      lines.push({ parent, product, quantity, priceCents });
      sums.set(parent, (sums.get(parent) ?? 0) + quantity * priceCents);
    }
    plans.set(type.name, { type: type.name, ...shape, lines });
  }
  return { plans, totals };
}

/** A type priced like a product: a Float `price` field, whose rows take their name and price from the catalogue. */
export function isPricedType(type: ResourceType): boolean {
  return type.fields.some((field) => field.kind === 'scalar' && field.name === 'price' && field.scalar === 'Float' && !field.list);
}

/** The Float `total` field of a type whose rows are the sum of line items, if it has one. */
export function totalField(type: ResourceType): ScalarField | undefined {
  return type.fields.find((field): field is ScalarField => field.kind === 'scalar' && field.name === 'total' && field.scalar === 'Float' && !field.list);
}

function lineItemShape(model: Model, type: ResourceType): Omit<LineItemPlan, 'type' | 'lines'> | undefined {
  const scalars = type.fields.filter((field): field is ScalarField => field.kind === 'scalar' && !field.list);
  const toOnes = type.fields.filter((field): field is ToOneRelation => field.kind === 'toOne');
  const parentField = toOnes.find((field) => field.target !== type.name && totalField(model.typesByName.get(field.target) as ResourceType) !== undefined);
  const quantityField = scalars.find((field) => field.scalar === 'Int' && field.name.toLowerCase().includes('quantity'));
  const priceField = scalars.find((field) => field.scalar === 'Float' && field.name.toLowerCase().includes('price'));
  if (parentField === undefined || quantityField === undefined || priceField === undefined) return undefined;
  const productField = toOnes.find((field) => isPricedType(model.typesByName.get(field.target) as ResourceType));
  return { parentField, productField, quantityField, priceField };
}
