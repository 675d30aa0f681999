import type { ComponentChildren } from 'preact';

/** Something under way: announced politely to screen readers, with a spinner for the eye. */
export function Progress(props: { label: string }) {
  return (
    <p class="progress" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {props.label}…
    </p>
  );
}

/** An outcome in words: errors interrupt (role alert), the rest wait their turn. */
export function Notice(props: { kind: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}
