import { useEffect, useState } from 'preact/hooks';
import { api, isAbort, messageOf } from './api';

export interface Resource<T> {
  readonly data: T | undefined;
  readonly error: string | undefined;
  readonly loading: boolean;
  /** Read it again (after a change), keeping what is shown until the answer comes. */
  readonly reload: () => void;
  /** Replace what is shown (a live update). */
  readonly set: (data: T) => void;
}

/** A GET of the public API, read again whenever `url` changes; a newer read cancels an older one. */
export function useResource<T>(url: string | undefined): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(url !== undefined);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (url === undefined) return;
    const controller = new AbortController();
    setLoading(true);
    setError(undefined);
    api<T>(url, { signal: controller.signal }).then(
      ({ body }) => {
        setData(body);
        setLoading(false);
      },
      (cause: unknown) => {
        if (isAbort(cause)) return;
        setError(messageOf(cause));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [url, round]);
  return { data, error, loading, reload: () => setRound((value) => value + 1), set: setData };
}
