// Success and error messages next to the control that caused them: the region is always in
// the page with aria-live, so screen readers announce
// what appears in it, and a phone user sees it where they pressed. When the action removed
// the control that had focus (a confirm dialog closed, a button replaced), focus moves to the
// message rather than falling to <body>.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import { ApiFailure } from "../api.ts";
import type { Action } from "../use-action.ts";
import { formatRetry } from "./retry.ts";

/** The failure as the server worded it; a 429 adds when to try again (Retry-After). */
export function failureText(error: unknown): string {
  if (error instanceof ApiFailure) {
    if (error.status === 429 && error.retryAfterSeconds !== undefined)
      return `${error.message} ${formatRetry(error.retryAfterSeconds)}`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Moves focus to `target` when focus has nowhere sensible left (body or a removed element). */
function rescueFocus(target: HTMLElement | null): void {
  const active = document.activeElement;
  if (!target) return;
  if (!active || active === document.body || !active.isConnected) target.focus();
}

/** Counts outcomes shown by any Feedback, so the newest one can be told from older ones. */
let outcomesShown = 0;

/**
 * The newest action outcome shown inside `place`: where focus goes when the control that ran
 * the action is gone (a removed row's confirm dialog), not an older message beside it.
 */
export function newestFeedback(place: ParentNode): HTMLElement | null {
  let newest: HTMLElement | null = null;
  for (const message of place.querySelectorAll<HTMLElement>("[data-feedback-message]")) {
    if (!newest || Number(message.dataset.feedbackMessage) > Number(newest.dataset.feedbackMessage))
      newest = message;
  }
  return newest;
}

export function Feedback(props: {
  action: Pick<Action, "error" | "success" | "version">;
  /** Extra content shown with a success (e.g. a link to the next step). */
  children?: ComponentChildren;
  testId?: string;
}) {
  const { error, success, version } = props.action;
  const message = useRef<HTMLDivElement>(null);
  // A new number for each outcome (version counts them).
  const order = useMemo(() => ++outcomesShown, [version]);
  useEffect(() => {
    if (version > 0 && (error !== undefined || success !== undefined)) rescueFocus(message.current);
  }, [version, error, success]);
  return (
    <div class="feedback" aria-live="polite" data-testid={props.testId ?? "feedback"}>
      {error !== undefined && (
        <div
          ref={message}
          tabIndex={-1}
          data-feedback-message={order}
          class="notice notice-error"
          data-testid="feedback-error"
        >
          {failureText(error)}
        </div>
      )}
      {error === undefined && success !== undefined && (
        <div
          ref={message}
          tabIndex={-1}
          data-feedback-message={order}
          class="notice notice-success"
          data-testid="feedback-success"
        >
          {success}
          {props.children}
        </div>
      )}
    </div>
  );
}
