// The portal's only way to the server: JSON to /portal/api on the same origin, with the
// session cookie. Errors arrive as {"error":{"code","message"}} and are shown as returned.

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** From a 429's Retry-After header: how many seconds until the action is allowed again. */
    readonly retryAfterSeconds?: number,
    /** Every problem of a rejected import, as the server listed them. */
    readonly problems?: { path: string; record_id?: string; message: string }[],
  ) {
    super(message);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when any request finds the session gone, so the app returns to the sign-in page. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/portal/api${path}`, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiFailure(
      0,
      "network",
      "The server could not be reached. Check your connection and try again.",
    );
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiFailure(
      response.status,
      "bad_response",
      `The server answered ${response.status} without JSON.`,
    );
  }
  if (!response.ok) {
    const error = (
      parsed as
        | { error?: { code?: string; message?: string; problems?: ApiFailure["problems"] } }
        | undefined
    )?.error;
    const retryAfter = Number(response.headers.get("Retry-After") ?? Number.NaN);
    const failure = new ApiFailure(
      response.status,
      error?.code ?? "error",
      error?.message ?? `Request failed (${response.status}).`,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      Array.isArray(error?.problems) ? error.problems : undefined,
    );
    if (failure.code === "session_required" && path !== "/session")
      for (const listener of signedOutListeners) listener();
    throw failure;
  }
  return parsed as T;
}
