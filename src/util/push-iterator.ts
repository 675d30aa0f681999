/**
 * An async iterator fed by callbacks (`push`), for transports that pull
 * (graphql-ws, graphql-sse). By default it holds only the newest value not
 * yet taken: a live query's values are states, so a slow reader skips to the
 * latest instead of piling them up. With `queue`, every value is kept in
 * order (events, where each one counts) up to `queue.max` unread; one more
 * ends the iterator after the value `queue.overflow` gives, so a reader that
 * stopped reading costs bounded memory. `return()` ends it at once, even
 * while a `next()` is waiting (an async generator would wait for it), and
 * calls `onEnd` once.
 */
export interface PushIterator<T> extends AsyncIterableIterator<T> {
  push(value: T): void;
  /** Ends it once the values still unread, and then `last`, are read (a producer's last word). */
  end(last: T): void;
  /** Resolves once fewer than `count` values wait to be read (at once if so), or the iterator ended: a producer's backpressure. */
  readBelow(count: number): Promise<void>;
  return(): Promise<IteratorResult<T>>;
  throw(error?: unknown): Promise<IteratorResult<T>>;
}

export interface PushQueue<T> {
  readonly max: number;
  /** The last value a reader that fell `max` behind is sent before the end. */
  readonly overflow: () => T;
}

export function pushIterator<T>(onEnd: () => void, queue?: PushQueue<T>): PushIterator<T> {
  const pending: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let done = false;
  /** Ends after the values still pending (a queue that overflowed). */
  let ending = false;
  let drained: { readonly count: number; readonly resolve: () => void } | undefined;
  const checkDrained = (): void => {
    if (drained !== undefined && (done || pending.length < drained.count)) {
      const { resolve } = drained;
      drained = undefined;
      resolve();
    }
  };
  const finish = (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      pending.length = 0;
      onEnd();
      waiting?.({ done: true, value: undefined });
      waiting = undefined;
      checkDrained();
    }
    return Promise.resolve({ done: true, value: undefined });
  };
  const deliver = (value: T): void => {
    if (waiting !== undefined) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ done: false, value });
    } else if (queue === undefined) {
      pending[0] = value;
    } else {
      pending.push(value);
    }
  };
  const iterator: PushIterator<T> = {
    push(value) {
      if (done || ending) return;
      if (waiting === undefined && queue !== undefined && pending.length >= queue.max) iterator.end(queue.overflow());
      else deliver(value);
    },
    end(last) {
      if (done || ending) return;
      deliver(last);
      ending = true;
    },
    readBelow(count) {
      if (done || pending.length < count) return Promise.resolve();
      return new Promise((resolve) => (drained = { count, resolve }));
    },
    next() {
      if (pending.length > 0) {
        const value = pending.shift() as T;
        checkDrained();
        return Promise.resolve({ done: false, value });
      }
      if (ending) return finish();
      if (done) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: finish,
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
