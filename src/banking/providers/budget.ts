// Request budgets. Real providers ration unattended reads: PSD2 banks
// behind Enable Banking allow about 4 a day per account; SimpleFIN Bridge about 24 requests a
// day per access URL. A pure planner decides what one pull fetches (balances first, then recent
// transactions, then older history) and when the next pull is allowed, so a sync never burns
// the budget and `svc sync` can say when to come back.

export const dayMs = 24 * 60 * 60 * 1000;

export interface RequestBudget {
  /** Requests allowed per period. */
  requests: number;
  periodMs: number;
  /** What the budget counts against: each bank account, or the whole connection (access). */
  scope: "account" | "connection";
  /** One request returns balances and transactions together (SimpleFIN's account set). */
  bundled: boolean;
}

export const enableBankingBudget: RequestBudget = {
  requests: 4,
  periodMs: dayMs,
  scope: "account",
  bundled: false,
};
export const simplefinBudget: RequestBudget = {
  requests: 24,
  periodMs: dayMs,
  scope: "connection",
  bundled: true,
};

/** What a pull may read, most valuable first. */
const fetchPriority = ["balances", "recent_transactions", "history"] as const;
export type FetchKind = (typeof fetchPriority)[number];

export interface PullPlan {
  /** What to fetch now, in order; empty: wait. */
  fetch: FetchKind[];
  /** When the pull after this one (or, when `fetch` is empty, the next one) is allowed. */
  nextAllowedAt: Date;
  /** Requests left in the current window after this pull. */
  remaining: number;
}

/**
 * Plans one pull for one budget scope (an account, or a connection).
 * - `spentAt`: times of the requests already made (older than a period are ignored).
 * - `wanted`: what is due (e.g. no history when the back-fill is done).
 * Pulls are paced evenly: a full pull costs one request per recurring kind (balances, recent
 * transactions; one in all when the budget is bundled), so full pulls are `periodMs / (requests / cost)` apart. When fewer
 * requests remain than a full pull costs, the most valuable kinds are fetched.
 */
export function planPull(input: {
  budget: RequestBudget;
  now: Date;
  spentAt: Date[];
  wanted: readonly FetchKind[];
}): PullPlan {
  const { budget } = input;
  const nowMs = input.now.getTime();
  const windowStart = nowMs - budget.periodMs;
  const inWindow = input.spentAt
    .map((at) => at.getTime())
    .filter((at) => at > windowStart && at <= nowMs)
    .sort((a, b) => a - b);
  const wanted = fetchPriority.filter((kind) => input.wanted.includes(kind));
  // Pacing counts the recurring reads only: older history is back-filled from what is left.
  const recurring = wanted.filter((kind) => kind !== "history").length;
  const costOfFullPull = budget.bundled ? 1 : Math.max(1, recurring);
  const pullsPerPeriod = Math.max(1, Math.floor(budget.requests / costOfFullPull));
  const gapMs = Math.ceil(budget.periodMs / pullsPerPeriod);
  const remaining = budget.requests - inWindow.length;
  const last = inWindow.at(-1);

  /** When `count` more requests fit: the window must have dropped enough old ones. */
  const freedAt = (used: number[], count: number): number => {
    const over = used.length + count - budget.requests;
    if (over <= 0) return nowMs;
    return (used[over - 1] ?? nowMs) + budget.periodMs;
  };

  if (wanted.length === 0 || remaining <= 0 || (last !== undefined && nowMs < last + gapMs)) {
    const paced = last !== undefined ? last + gapMs : nowMs;
    const next = Math.max(paced, freedAt(inWindow, 1));
    return { fetch: [], nextAllowedAt: new Date(next), remaining: Math.max(0, remaining) };
  }
  const fetch = budget.bundled ? wanted : wanted.slice(0, remaining);
  const cost = budget.bundled ? 1 : fetch.length;
  const after = [...inWindow, ...Array<number>(cost).fill(nowMs)];
  const next = Math.max(nowMs + gapMs, freedAt(after, 1));
  return { fetch, nextAllowedAt: new Date(next), remaining: remaining - cost };
}
