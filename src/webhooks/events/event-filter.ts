// Per-endpoint event-type filter. An endpoint receives all account event types
// unless it names some; webhook.verify and webhook.test are one-off sends to the endpoint itself
// (delivery/one-off-send.ts), never fanned out, so no filter can keep them away. Listing them is
// refused rather than silently dropped, so nobody believes they chose to receive or skip them.
import { ApiError } from "../../core/errors.ts";
import { type AccountEventType, accountEventTypes, eventTypes } from "./types.ts";

/** null = every account event type. */
export type EventTypeFilter = AccountEventType[] | null;

/** Validates a list of event types: known account event types, at least one; sorted, unique. */
export function parseEventTypeFilter(input: readonly string[] | null): EventTypeFilter {
  if (input === null) return null;
  const wanted = [...new Set(input.map((t) => t.trim()).filter((t) => t !== ""))];
  const always = wanted.filter(
    (t) =>
      (eventTypes as readonly string[]).includes(t) &&
      !(accountEventTypes as readonly string[]).includes(t),
  );
  if (always.length > 0) {
    throw new ApiError(
      "invalid_request",
      `${always.join(", ")} always reach the endpoint and cannot be filtered; list only account event types (${accountEventTypes.join(", ")}).`,
    );
  }
  const unknown = wanted.filter((t) => !(accountEventTypes as readonly string[]).includes(t));
  if (unknown.length > 0) {
    throw new ApiError(
      "invalid_request",
      `Unknown event type${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; the account event types are ${accountEventTypes.join(", ")}.`,
    );
  }
  if (wanted.length === 0) {
    throw new ApiError(
      "invalid_request",
      "List at least one event type, or none at all (null) to receive every account event type.",
    );
  }
  return (wanted as AccountEventType[]).sort();
}

/** The stored column: a JSON array, or null for all. */
export function storeEventTypeFilter(filter: EventTypeFilter): string | null {
  return filter === null ? null : JSON.stringify(filter);
}

export function readEventTypeFilter(stored: string | null): EventTypeFilter {
  return stored === null ? null : (JSON.parse(stored) as AccountEventType[]);
}

/** Whether an endpoint with this stored filter receives an account event of `type`. */
export function endpointWants(stored: string | null, type: AccountEventType): boolean {
  const filter = readEventTypeFilter(stored);
  return filter === null || filter.includes(type);
}
