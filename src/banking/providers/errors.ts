// Provider errors with meaning (spec 3 "Connection" statuses).
// Every real provider throws a ProviderError of one kind; ONE table decides what each kind does
// to the connection's status. docs/providers.md carries the same table in words.
import type { ConnectionStatus } from "../../db/schema.ts";

const providerErrorKinds = [
  "consent_expired",
  "consent_revoked",
  "user_declined",
  "rate_limited",
  "unavailable",
  "bad_config",
] as const;
export type ProviderErrorKind = (typeof providerErrorKinds)[number];

export class ProviderError extends Error {
  override name = "ProviderError";
  readonly kind: ProviderErrorKind;
  /** For `rate_limited`: how long the provider asked us to wait, when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(kind: ProviderErrorKind, message: string, options: { retryAfterMs?: number } = {}) {
    super(message);
    this.kind = kind;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A bank or provider outage becomes `error` only after this many failed syncs in a row. */
export const failuresBeforeError = 3;
/** How long to wait after a rate limit that named no Retry-After. */
export const defaultRetryAfterMs = 60 * 60 * 1000;

/** What a failure does: a status to set, or "unchanged" (keep the stored one). */
type Effect =
  | { status: ConnectionStatus }
  | { status: "unchanged"; retryLater: true }
  | { status: "error_after_repeats" };

/** THE table: kind -> effect on the connection's status. */
export const providerErrorEffects: Record<ProviderErrorKind, Effect> = {
  consent_expired: { status: "expired" },
  consent_revoked: { status: "suspended" },
  user_declined: { status: "rejected" },
  rate_limited: { status: "unchanged", retryLater: true },
  unavailable: { status: "error_after_repeats" },
  bad_config: { status: "error" },
};

export interface FailureOutcome {
  status: ConnectionStatus;
  /** Whether this failure counts toward `failuresBeforeError` (rate limits do not). */
  countsAsFailure: boolean;
  /** Consecutive failures after this one. */
  consecutiveFailures: number;
  /** When set, the next pull must wait at least this long. */
  retryAfterMs?: number;
}

/** Applies the table to one failed sync of a connection. */
export function statusAfterFailure(
  error: ProviderError,
  connection: { status: ConnectionStatus; consecutiveFailures: number },
): FailureOutcome {
  const effect = providerErrorEffects[error.kind];
  if (effect.status === "unchanged") {
    return {
      status: connection.status,
      countsAsFailure: false,
      consecutiveFailures: connection.consecutiveFailures,
      retryAfterMs: error.retryAfterMs ?? defaultRetryAfterMs,
    };
  }
  const consecutiveFailures = connection.consecutiveFailures + 1;
  if (effect.status === "error_after_repeats") {
    return {
      status: consecutiveFailures >= failuresBeforeError ? "error" : connection.status,
      countsAsFailure: true,
      consecutiveFailures,
    };
  }
  return { status: effect.status, countsAsFailure: true, consecutiveFailures };
}

/** A good sync: the connection is linked again and its failure count starts over. */
export function statusAfterSuccess(): { status: ConnectionStatus; consecutiveFailures: number } {
  return { status: "linked", consecutiveFailures: 0 };
}

/** Reads an HTTP Retry-After header (seconds or an HTTP date) into milliseconds from `nowMs`. */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
