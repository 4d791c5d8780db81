import { useCallback, useState } from "preact/hooks";

export interface Action {
  busy: boolean;
  /** The last failure, shown as the server worded it; cleared when the next run starts. */
  error: unknown;
  /** What the last run achieved, when it said (the string `work` returned). */
  success: string | undefined;
  /** Counts finished runs, so feedback can tell a new outcome from an old one. */
  version: number;
  run: (work: () => Promise<unknown>) => Promise<void>;
  clear: () => void;
}

/**
 * Runs a user's action: busy while it runs, its failure or its success message kept for the
 * feedback shown next to the control (components/feedback.tsx), never thrown.
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [success, setSuccess] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const run = useCallback(async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    setSuccess(undefined);
    try {
      const said = await work();
      if (typeof said === "string") setSuccess(said);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
      setVersion((v) => v + 1);
    }
  }, []);
  const clear = useCallback(() => {
    setError(undefined);
    setSuccess(undefined);
  }, []);
  return { busy, error, success, version, run, clear };
}
