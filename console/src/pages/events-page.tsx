import { useEffect, useState } from 'preact/hooks';
import { isAbort, messageOf } from '../api';
import { readEventStream } from '../sse';
import { Webhooks } from '../parts/webhooks';
import { Notice } from '../parts/status';

interface ChangeEvent {
  readonly key: string;
  readonly type: string;
  readonly id: string;
  readonly at: string;
  readonly data: string;
}

const KEEP = 50;

/** The live stream of changes (as the caller may read them), and, for admins, webhook endpoints and deliveries. */
export function EventsPage(props: { streamPath: string | undefined; admin: boolean }) {
  const [events, setEvents] = useState<ChangeEvent[]>([]);
  const [state, setState] = useState<string>('Connecting…');
  const [error, setError] = useState<string | undefined>(undefined);
  const [running, setRunning] = useState(true);

  // Where the server says its change stream is (`GET /`'s links.events: `/_events` when a type owns `/events`); a server without one is not asked.
  const { streamPath } = props;

  useEffect(() => {
    if (streamPath === undefined) {
      setState('This server has no change stream (GET /events).');
      return;
    }
    if (!running) {
      setState('Paused.');
      return;
    }
    const controller = new AbortController();
    setState('Connecting…');
    setError(undefined);
    let count = 0;
    const open = (): void => {
      readEventStream(
        streamPath,
        (message) => {
          if (message.event === 'message' && message.data === '') return;
          let parsed: { id?: string; type?: string; timestamp?: string; data?: unknown } = {};
          try {
            parsed = JSON.parse(message.data) as typeof parsed;
          } catch {
            return;
          }
          count += 1;
          const event: ChangeEvent = {
            key: `${message.id ?? ''}-${count}`,
            type: parsed.type ?? message.event,
            id: parsed.id ?? message.id ?? '',
            at: parsed.timestamp ?? new Date().toISOString(),
            data: JSON.stringify(parsed.data ?? {}, null, 1),
          };
          setEvents((old) => [event, ...old].slice(0, KEEP));
        },
        controller.signal,
        () => setState('Listening: changes appear here as they are committed.'),
      ).then(
        () => setState('The stream ended.'),
        (cause: unknown) => {
          if (!isAbort(cause)) {
            setError(`The stream stopped: ${messageOf(cause)}`);
            setState('Stopped.');
          }
        },
      );
    };
    open();
    return () => controller.abort();
  }, [running]);

  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events & webhooks</h1>
      <h2>Live changes</h2>
      <div class="toolbar">
        <p role="status" class="muted" data-testid="stream-state">
          {state}
        </p>
        <button type="button" onClick={() => setRunning(!running)} aria-pressed={!running}>
          {running ? 'Pause stream' : 'Resume stream'}
        </button>
        <button type="button" onClick={() => setEvents([])} disabled={events.length === 0}>
          Clear
        </button>
      </div>
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      <ol class="event-list" aria-label="Change events, newest first" aria-live="polite">
        {events.length === 0 && <li class="muted">No changes yet. Edit a record (in another tab) to see one arrive.</li>}
        {events.map((event) => (
          <li key={event.key} class="event">
            <span class="event-type">{event.type}</span> <time dateTime={event.at}>{new Date(event.at).toLocaleTimeString()}</time>
            <details>
              <summary>payload</summary>
              {/* Focusable: a long payload scrolls, and a keyboard must be able to scroll it too (axe scrollable-region-focusable). */}
              <pre tabIndex={0}>{event.data}</pre>
            </details>
          </li>
        ))}
      </ol>
      {props.admin ? <Webhooks /> : <p class="muted">Webhook endpoints and deliveries are managed by the admin role.</p>}
    </section>
  );
}
