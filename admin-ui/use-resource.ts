import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiFailure, api } from "./api.ts";

export interface Resource<T> {
  data: T | undefined;
  error: ApiFailure | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads a GET route and keeps loading / error / data state for a page. */
export function useResource<T>(path: string | undefined): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiFailure | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const reload = useCallback(async () => {
    if (!path) return;
    setLoading(true);
    try {
      setData(await api<T>("GET", path));
      setError(undefined);
    } catch (failure) {
      setError(
        failure instanceof ApiFailure ? failure : new ApiFailure(0, "error", String(failure)),
      );
    } finally {
      setLoading(false);
    }
  }, [path]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}
