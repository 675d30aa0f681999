import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyBaseLogger } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { edgeResponse, rawHttpResponse } from './edge-response.js';
import { linger, lingerAfterResponse, type LingerLimits } from './lingering-close.js';

export interface ClientErrors {
  /** Fastify's `clientErrorHandler`: Node's `clientError`, answered in the documented shape. */
  readonly handler: (error: ConnectionError, socket: Socket) => void;
  /** Watches `server`'s requests (so an error about one answers in its endpoint's shape) and its `Expect` headers. */
  attach(server: Server, log: FastifyBaseLogger): void;
}

/**
 * What Node refuses before any route runs: a request line or header it
 * cannot parse (400), headers over its size limit (431, RFC 6585 §5), a
 * request not received within `requestTimeout` (408), an expectation other
 * than 100-continue (417, RFC 9110 §10.1.1). Node's own answers are bare
 * status lines and Fastify's are its own JSON; these carry registered codes.
 */
export function clientErrors(limits: LingerLimits): ClientErrors {
  // Each socket's latest request, by its response: written to, the error is not about it.
  const latest = new WeakMap<Socket, ServerResponse>();
  let logger: FastifyBaseLogger | undefined;

  const handler = (error: ConnectionError, socket: Socket): void => {
    // A reset client hears nothing; an answered socket is already closing within its own bounds.
    if (error.code === 'ECONNRESET' || socket.destroyed || socket.writableEnded) return;
    const response = latest.get(socket);
    if (response?.headersSent === true && !response.writableFinished) {
      // Halfway through a response: anything written now would corrupt it.
      socket.destroy();
      return;
    }
    const request = response === undefined || response.headersSent ? undefined : response.req;
    const refusal = refusalOf(error);
    logger?.debug({ code: error.code, answered: refusal.code }, 'client error');
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.write(rawHttpResponse(edgeResponse(refusal, request === undefined ? undefined : { url: request.url, headers: request.headers })));
    if (refusal.code === 'REQUEST_TIMEOUT') {
      // A client too slow to send its request is not waited for again.
      socket.end(() => socket.destroy());
    } else {
      linger(socket, undefined, limits);
    }
  };

  return {
    handler,
    attach(server, log) {
      logger = log;
      server.on('request', (request, response: ServerResponse) => {
        latest.set(request.socket, response);
      });
      // Only 100-continue is an expectation HTTP/1.1 defines; Node answers it itself.
      server.on('checkExpectation', (request, response: ServerResponse) => {
        const refusal = new ApiError('EXPECTATION_FAILED', {
          detail: `This server meets no expectation but 100-continue; the request expects "${String(request.headers.expect)}"`,
        });
        const answer = edgeResponse(refusal, { url: request.url, headers: request.headers });
        if (!request.complete) {
          response.setHeader('connection', 'close');
          lingerAfterResponse(request, limits);
        }
        response.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) }).end(answer.body);
      });
    },
  };
}

function refusalOf(error: ConnectionError): ApiError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', { detail: 'The request did not arrive in time; send it again, faster' });
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', { detail: 'The request line and headers are larger than this server accepts' });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError('BODY_TOO_LARGE', { detail: 'The chunk extensions are larger than this server accepts' });
    default:
      return new ApiError('BAD_REQUEST', { detail: `The request is not valid HTTP/1.1${reasonOf(error)}` });
  }
}

/** llhttp says what it could not parse ("Invalid method encountered"); nothing of the request itself is echoed. */
function reasonOf(error: ConnectionError): string {
  const reason = (error as { reason?: unknown }).reason;
  return typeof reason === 'string' && reason !== '' ? `: ${reason}` : '';
}
