import { textOf, type ModelField } from '../model';

/** The form's text for a stored value: what an input shows. */
export function toInput(field: ModelField, value: unknown): string {
  if (value === null || value === undefined) return '';
  if (field.list || field.scalar === 'json') return JSON.stringify(value, null, 2);
  if (field.scalar === 'date-time' && typeof value === 'string') {
    const date = new Date(value);
    // datetime-local shows local time without a zone.
    return Number.isNaN(date.getTime()) ? value : new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  }
  return textOf(value);
}

/** The JSON value to send for an input's text; a thrown Error's message is shown beside the field. */
export function fromInput(field: ModelField, text: string): unknown {
  if (text === '' && field.scalar !== 'string') return null;
  if (text === '' && field.nullable) return null;
  if (field.list || field.scalar === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(field.list ? 'Write a JSON list, such as ["a", "b"]' : 'Write valid JSON');
    }
  }
  switch (field.scalar) {
    case 'integer':
    case 'number': {
      const number = Number(text);
      if (!Number.isFinite(number) || (field.scalar === 'integer' && !Number.isInteger(number))) throw new Error(field.scalar === 'integer' ? 'Write a whole number' : 'Write a number');
      return number;
    }
    case 'boolean':
      return text === 'true';
    case 'date-time':
      return new Date(text).toISOString();
    default:
      return text;
  }
}

const LONG_TEXT = /^(body|bio|description|content|text|note|summary)$/i;

/** One input for a scalar or enum field, labelled by its name and described by its error or help. */
export function FieldInput(props: { field: ModelField; id: string; value: string; disabled: boolean; describedBy?: string; invalid: boolean; onInput: (text: string) => void }) {
  const { field } = props;
  const common = {
    id: props.id,
    name: field.name,
    disabled: props.disabled,
    'aria-invalid': props.invalid ? ('true' as const) : undefined,
    'aria-describedby': props.describedBy,
    required: field.required && !props.disabled,
  };
  const onText = (event: Event): void => props.onInput((event.currentTarget as HTMLInputElement).value);
  if (field.kind === 'enum' && !field.list) {
    return (
      <select {...common} value={props.value} onChange={onText}>
        {(field.nullable || props.value === '') && <option value="">—</option>}
        {field.enumValues?.map((value) => (
          <option key={value}>{value}</option>
        ))}
      </select>
    );
  }
  if (field.scalar === 'boolean' && !field.list) {
    return (
      <select {...common} value={props.value} onChange={onText}>
        {(field.nullable || props.value === '') && <option value="">—</option>}
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (field.list || field.scalar === 'json' || LONG_TEXT.test(field.name)) {
    return <textarea {...common} rows={field.list || field.scalar === 'json' ? 3 : 5} value={props.value} onInput={onText} spellcheck={field.scalar === 'string' && !field.list} />;
  }
  if (field.scalar === 'integer' || field.scalar === 'number') return <input {...common} type="number" step={field.scalar === 'number' ? 'any' : 1} value={props.value} onInput={onText} />;
  if (field.scalar === 'date-time') return <input {...common} type="datetime-local" step={1} value={props.value} onInput={onText} />;
  if (field.name === 'email') return <input {...common} type="email" value={props.value} onInput={onText} />;
  return <input {...common} type="text" value={props.value} onInput={onText} />;
}
