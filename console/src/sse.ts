/**
 * Server-Sent Events over fetch: EventSource cannot send an Authorization
 * header, and the console's credential is a bearer token, so the stream is
 * read with fetch and parsed here (WHATWG HTML §9.2.6: `event:`, `id:`,
 * `data:` lines, a blank line ends a message, `:` lines are comments).
 */
import { session } from './session';
import { problemFrom } from './api';

export interface StreamMessage {
  readonly event: string;
  readonly id: string | undefined;
  readonly data: string;
}

/** Reads the stream until it ends or `signal` aborts; `onOpen` once the server has answered (it subscribes before it answers); reconnects are the caller's choice. */
export async function readEventStream(url: string, onMessage: (message: StreamMessage) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  const token = session.token();
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const response = await fetch(url, { headers, signal, cache: 'no-store' });
  if (!response.ok || response.body === null) throw await problemFrom(response);
  onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = 'message';
  let id: string | undefined;
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) onMessage({ event, id, data: data.join('\n') });
        event = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon === -1 ? line : line.slice(0, colon);
      const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event = text;
      else if (name === 'data') data.push(text);
      else if (name === 'id') id = text;
    }
  }
}
