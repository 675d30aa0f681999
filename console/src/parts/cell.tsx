import { textOf, type Model, type ModelField } from '../model';
import { href } from '../router';

/** One value as a table shows it: pictures as thumbnails, relations as links, the rest as short text. */
export function Cell(props: { model: Model; field: ModelField; value: unknown }) {
  const { field, value } = props;
  if (value === null || value === undefined) return <span class="muted">—</span>;
  if (field.kind === 'file') return typeof value === 'string' ? <img class="thumb" src={value} alt={field.name} width={32} height={32} loading="lazy" /> : null;
  if (field.kind === 'toOne' && field.target !== undefined) {
    const id = textOf(value);
    return <a href={href('data', field.target, id)}>{field.target} {id}</a>;
  }
  if (field.scalar === 'boolean' && !field.list) return <span>{value === true ? 'yes' : 'no'}</span>;
  if (field.scalar === 'date-time' && typeof value === 'string') return <time dateTime={value}>{new Date(value).toLocaleString()}</time>;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return <span title={text.length > 80 ? text : undefined}>{text.length > 80 ? `${text.slice(0, 79)}…` : text}</span>;
}
