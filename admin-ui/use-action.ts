import { useCallback, useState } from "preact/hooks";

export interface Action {
  busy: boolean;
  /** The last failure, shown as the server worded it; cleared when the next run starts. */
  error: unknown;
  run: (work: () => Promise<void>) => Promise<void>;
}

/** Runs a user's action: busy while it runs, its failure kept for display, never thrown. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
