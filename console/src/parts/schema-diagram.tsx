import type { Model, ModelField } from '../model';
import { href } from '../router';

const BOX_WIDTH = 210;
const ROW = 18;
const GAP_X = 70;
const GAP_Y = 40;

/**
 * Types as boxes (their fields listed, relations marked) in a grid, and a
 * line from each relation to the type it points at: plain SVG from the
 * model, no layout library.
 */
export function SchemaDiagram(props: { model: Model }) {
  const types = props.model.types;
  const columns = Math.max(1, Math.min(4, Math.ceil(Math.sqrt(types.length))));
  // A box lists the relations (what the lines join) and counts the other fields, so a wide type stays small.
  const shownFields = (type: (typeof types)[number]): ModelField[] => type.fields.filter((field) => field.target !== undefined);
  const heights = types.map((type) => 30 + (shownFields(type).length + 1) * ROW + 8);
  const rowHeights: number[] = [];
  types.forEach((_, index) => {
    const row = Math.floor(index / columns);
    rowHeights[row] = Math.max(rowHeights[row] ?? 0, heights[index] ?? 0);
  });
  const position = new Map<string, { x: number; y: number; h: number }>();
  types.forEach((type, index) => {
    const row = Math.floor(index / columns);
    const y = rowHeights.slice(0, row).reduce((sum, height) => sum + height + GAP_Y, 10);
    position.set(type.name, { x: 10 + (index % columns) * (BOX_WIDTH + GAP_X), y, h: heights[index] ?? 0 });
  });
  const width = 20 + columns * BOX_WIDTH + (columns - 1) * GAP_X;
  const height = rowHeights.reduce((sum, h) => sum + h + GAP_Y, 10);
  const lines: { from: { x: number; y: number }; to: { x: number; y: number }; field: ModelField; key: string }[] = [];
  for (const type of types) {
    const box = position.get(type.name);
    if (box === undefined) continue;
    shownFields(type).forEach((field, index) => {
      if (field.target === undefined || field.kind === 'toMany') return;
      const other = position.get(field.target);
      if (other === undefined) return;
      const y = box.y + 30 + index * ROW + ROW / 2 - 4;
      const right = other.x > box.x;
      lines.push({
        key: `${type.name}.${field.name}`,
        field,
        from: { x: right || other.x === box.x ? box.x + BOX_WIDTH : box.x, y },
        to: { x: right ? other.x : other.x === box.x ? other.x + BOX_WIDTH : other.x + BOX_WIDTH, y: other.y + 14 },
      });
    });
  }
  return (
    <div class="diagram-wrap" tabIndex={0} aria-label="Diagram of types and relations; scroll to see it all">
      <svg class="diagram" viewBox={`0 0 ${width} ${height}`} width={width} height={height} aria-labelledby="diagram-title">
        <title id="diagram-title">
          {types.length} types: {types.map((type) => `${type.name} (${type.fields.filter((field) => field.target !== undefined).map((field) => `${field.name} → ${field.target ?? ''}`).join(', ') || 'no relations'})`).join('; ')}
        </title>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
          </marker>
        </defs>
        {lines.map((line) => {
          const mid = (line.from.x + line.to.x) / 2;
          const bend = line.from.x === line.to.x ? line.from.x + 40 : mid;
          return <path key={line.key} class={`edge ${line.field.kind}`} d={`M${line.from.x},${line.from.y} C${bend},${line.from.y} ${bend},${line.to.y} ${line.to.x},${line.to.y}`} marker-end="url(#arrow)" />;
        })}
        {types.map((type) => {
          const box = position.get(type.name);
          if (box === undefined) return null;
          return (
            <a key={type.name} href={href('data', type.name)} aria-label={`${type.name}: open its records`}>
              <rect class="box" x={box.x} y={box.y} width={BOX_WIDTH} height={box.h} rx={6} />
              <text class="box-title" x={box.x + 10} y={box.y + 20}>
                {type.name}
              </text>
              {shownFields(type).map((field, index) => (
                <text key={field.name} class={field.target !== undefined ? 'field rel' : 'field'} x={box.x + 10} y={box.y + 30 + (index + 1) * ROW - 4}>
                  {field.name}
                  <tspan class="field-type" dx={6}>
                    {field.kind === 'toOne' ? (field.target ?? '') : `[${field.target ?? ''}]`}
                    {field.required ? '!' : ''}
                  </tspan>
                </text>
              ))}
              <text class="field more" x={box.x + 10} y={box.y + 30 + (shownFields(type).length + 1) * ROW - 4}>
                {type.fields.length - shownFields(type).length} other fields
              </text>
            </a>
          );
        })}
      </svg>
    </div>
  );
}
