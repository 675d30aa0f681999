import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request, written when the response is done: method, URL,
 * status and time taken, with the request id the request's logger carries.
 * Fastify's own are two lines at info ("incoming request", "request
 * completed"); the first is kept at debug, where it shows the headers.
 * Everything else Fastify logs is left as it is.
 */
export class RequestLog extends LogController {
  /** The request's headers (credentials redacted by the logger's options), for debugging only. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const fields = { method: request.method, url: request.url, status: reply.statusCode, ms };
    const line = `${request.method} ${request.url} ${reply.statusCode} ${ms} ms`;
    // An error here is the connection's (the client went away mid-response), not the application's.
    if (error) reply.log.warn({ ...fields, err: error }, `${line} (${error.message})`);
    else reply.log.info(fields, line);
  }
}
