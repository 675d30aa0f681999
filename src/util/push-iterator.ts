/**
 * An async iterator fed by callbacks (`push`), for transports that pull
 * (graphql-ws, graphql-sse). It holds only the newest value not yet taken:
 * a live query's values are states, so a slow reader skips to the latest
 * instead of piling them up. `return()` ends it at once, even while a
 * `next()` is waiting (an async generator would wait for it), and calls
 * `onEnd` once.
 */
export interface PushIterator<T> extends AsyncIterableIterator<T> {
  push(value: T): void;
  return(): Promise<IteratorResult<T>>;
  throw(error?: unknown): Promise<IteratorResult<T>>;
}

export function pushIterator<T>(onEnd: () => void): PushIterator<T> {
  let pending: { value: T } | undefined;
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let done = false;
  const finish = (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      pending = undefined;
      onEnd();
      waiting?.({ done: true, value: undefined });
      waiting = undefined;
    }
    return Promise.resolve({ done: true, value: undefined });
  };
  const iterator: PushIterator<T> = {
    push(value) {
      if (done) return;
      if (waiting !== undefined) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ done: false, value });
      } else {
        pending = { value };
      }
    },
    next() {
      if (pending !== undefined) {
        const { value } = pending;
        pending = undefined;
        return Promise.resolve({ done: false, value });
      }
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
