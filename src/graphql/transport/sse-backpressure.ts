import type { ServerResponse } from 'node:http';

/** Messages of one stream handed to graphql-sse and not yet written to its socket, past which the next one waits. */
const IN_FLIGHT = 16;

/**
 * Backpressure for graphql-sse, which reads each operation's results as
 * fast as they come and queues them without a bound until its stream writes
 * them. Each stream (by its token) counts the results handed over and the
 * `next` messages its response has written; an operation's results are
 * handed over only while fewer than IN_FLIGHT wait. So the results wait in
 * the operation's own iterator, where a live query keeps only the newest
 * and change events are bounded (util/push-iterator.ts), as over graphql-ws.
 */
export class SseBackpressure {
  readonly #streams = new Map<string, StreamCount>();

  /**
   * Counts the `next` messages `response`, a stream, writes for its token
   * (known only once graphql-sse has authenticated the request). When it
   * closes, its operations are no longer held back, and it is forgotten.
   */
  watch(response: ServerResponse, tokenOf: () => string | undefined): void {
    let token: string | undefined;
    const write = response.write.bind(response) as (chunk: unknown, ...rest: unknown[]) => boolean;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      token ??= tokenOf();
      if (token !== undefined && typeof chunk === 'string' && chunk.startsWith('event: next')) this.#countOf(token).wrote();
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    response.once('close', () => {
      token ??= tokenOf();
      if (token === undefined) return;
      const count = this.#streams.get(token);
      count?.close();
      if (count !== undefined) this.#streams.delete(token);
    });
  }

  /** `results`, handed over only as fast as the stream of `token` writes them. */
  throttle<T>(token: string, results: AsyncIterableIterator<T> & { return(): Promise<IteratorResult<T>> }): AsyncIterableIterator<T> {
    const count = this.#countOf(token);
    const throttled: AsyncIterableIterator<T> = {
      async next() {
        await count.room();
        const result = await results.next();
        if (result.done !== true) count.handed += 1;
        return result;
      },
      return: () => results.return(),
      [Symbol.asyncIterator]: () => throttled,
    };
    return throttled;
  }

  #countOf(token: string): StreamCount {
    let count = this.#streams.get(token);
    if (count === undefined) this.#streams.set(token, (count = new StreamCount()));
    return count;
  }
}

class StreamCount {
  handed = 0;
  #written = 0;
  #closed = false;
  #waiting: (() => void)[] = [];

  /** Resolves once fewer than IN_FLIGHT handed results wait to be written (or the stream is gone). */
  room(): Promise<void> {
    if (this.#closed || this.handed - this.#written < IN_FLIGHT) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  wrote(): void {
    this.#written += 1;
    this.#wake();
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}
