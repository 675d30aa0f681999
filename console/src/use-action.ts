import { useState } from 'preact/hooks';
import { ApiProblem, messageOf } from './api';

export interface Action {
  /** What is under way, in words (shown as progress); undefined when idle. */
  readonly busy: string | undefined;
  readonly error: string | undefined;
  /** The server's validation errors by field, from the problem's pointers. */
  readonly fieldErrors: ReadonlyMap<string, string>;
  /** What the last action did, in words. */
  readonly note: string | undefined;
  /** Runs one change; its answer (a sentence, or nothing) becomes the note. */
  readonly run: (label: string, request: () => Promise<string | undefined>) => Promise<void>;
}

/** One change at a time, with its progress and its outcome in words. */
export function useAction(after?: () => void): Action {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [fieldErrors, setFieldErrors] = useState<ReadonlyMap<string, string>>(new Map());
  const [note, setNote] = useState<string | undefined>(undefined);
  const run = async (label: string, request: () => Promise<string | undefined>): Promise<void> => {
    setBusy(label);
    setError(undefined);
    setNote(undefined);
    setFieldErrors(new Map());
    try {
      setNote(await request());
      after?.();
    } catch (cause) {
      if (cause instanceof ApiProblem) setFieldErrors(cause.byField());
      setError(messageOf(cause));
    } finally {
      setBusy(undefined);
    }
  };
  return { busy, error, fieldErrors, note, run };
}
