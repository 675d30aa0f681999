/** A labelled text input with its help, or in its place the server's error for it (from the problem's pointer). */
export function TextField(props: { id: string; name: string; label: string; error: string | undefined; help?: string; inputMode?: 'url'; placeholder?: string; pattern?: string; grow?: boolean }) {
  const note = props.error ?? props.help;
  return (
    <div class={props.grow === true ? 'field grow' : 'field'}>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="text"
        inputMode={props.inputMode}
        required
        placeholder={props.placeholder}
        pattern={props.pattern}
        aria-invalid={props.error !== undefined ? 'true' : undefined}
        aria-describedby={note === undefined ? undefined : `${props.id}-note`}
      />
      {note !== undefined && (
        <span id={`${props.id}-note`} class={props.error !== undefined ? 'field-error' : 'muted small'}>
          {note}
        </span>
      )}
    </div>
  );
}
