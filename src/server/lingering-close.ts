import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How much of a request the server reads and throws away after refusing it, before it closes the connection. */
export interface LingerLimits {
  /** Bytes read after the answer; past them the connection is closed at once. */
  readonly maxBytes: number;
  /** Milliseconds waited after the answer for the client to finish sending. */
  readonly maxMs: number;
}

export const DEFAULT_LINGER: LingerLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 };

/**
 * For an answer about to go out before its request has all arrived (a 413,
 * a refused upload): once Node has written it and would close the socket
 * (the answer says `Connection: close`), the socket lingers instead. Closing
 * a socket with unread data sends a TCP reset, and the client, still sending
 * its body, gets EPIPE or ECONNRESET and may never read the answer waiting
 * in its buffer; so, as nginx's lingering close does, the server half-closes,
 * reads and discards what still comes, within `limits`, and closes after.
 */
export function lingerAfterResponse(request: IncomingMessage, limits: LingerLimits): void {
  const { socket } = request;
  // Nobody reads the body from here on (a multipart parser may still be piped to it, stalled): it
  // flows away through Node's parser, counted. Reading it now also keeps Node from dumping it
  // uncounted once the answer is out. (A 'data' listener on the socket instead would take the bytes
  // from the parser, and one added after the parser paused the socket never gets it reading again.)
  let received = 0;
  request.unpipe();
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) socket.destroy();
  });
  request.resume();
  // Node calls this once the response is written, instead of closing (it is only called for `Connection: close`).
  socket.destroySoon = () => {
    linger(socket, request, limits);
  };
}

/**
 * Half-closes `socket` now (after what was written) and closes it once the
 * client is done sending (`request`'s end when there is one, whose body
 * `lingerAfterResponse` counts; else any bytes, counted here), or at a limit.
 */
export function linger(socket: Socket, request: IncomingMessage | undefined, limits: LingerLimits): void {
  if (socket.destroyed) return;
  socket.end();
  if (socket.readableEnded || request?.complete === true) {
    closeWhenFlushed(socket);
    return;
  }
  const timer = setTimeout(() => socket.destroy(), limits.maxMs);
  timer.unref();
  socket.once('close', () => {
    clearTimeout(timer);
  });
  socket.once('end', () => {
    closeWhenFlushed(socket);
  });
  if (request !== undefined) {
    request.once('end', () => {
      closeWhenFlushed(socket);
    });
    return;
  }
  // Nothing parses this socket any more (its request could not be read): its bytes are counted raw.
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) socket.destroy();
  });
  socket.resume();
}

function closeWhenFlushed(socket: Socket): void {
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}
