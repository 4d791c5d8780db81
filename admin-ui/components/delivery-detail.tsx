// One delivery in full: the exact signed body pretty-printed
// with Copy (copies the exact bytes, which the signature covers), the headers each attempt
// sent, each attempt's result, duration and time, the next attempt, and Resend / Retry now with
// their result announced next to the buttons.
import { useEffect, useRef, useState } from "preact/hooks";
import type { AttemptDetail, DeliveryDetail } from "../../src/webhooks/delivery-log/detail.ts";
import { ApiFailure, api } from "../api.ts";
import type { DeliveryView } from "../types.ts";
import { useFocusWhen } from "../use-focus.ts";
import { useResource } from "../use-resource.ts";
import { CopyId } from "./copy.tsx";
import { formatDurationMs, prettyJson } from "./format.ts";
import { formatRetry } from "./retry.ts";
import { Time } from "./time.tsx";
import { ActionButton, CopyButton, ErrorNotice, Loading } from "./ui.tsx";

function attemptResult(a: { statusCode: number | null; errorClass: string | null }): string {
  return a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.errorClass ?? "no answer");
}

function Headers(props: { attempt: AttemptDetail; kind: DeliveryDetail["kind"] }) {
  const headers = props.attempt.requestHeaders;
  if (!headers) {
    return (
      <p class="small muted">
        {props.kind === "verify"
          ? "Headers not shown: the signature covers the verification code."
          : "No request headers recorded (no request left, e.g. a DNS failure)."}
      </p>
    );
  }
  return (
    <div class="sent-headers">
      <p class="small muted">Request headers sent</p>
      <dl>
        {Object.entries(headers).map(([name, value]) => (
          <div class="sent-header">
            <dt class="mono">{name}</dt>
            <dd class="mono break" data-testid={`header-${name}`}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      <CopyButton
        value={headers["Svc-Webhook-Signature"]}
        label={`signature of attempt ${props.attempt.number}`}
      />
    </div>
  );
}

type Outcome = { kind: "success" | "error"; text: string };

/** Resend / Retry now, with their result next to them in a polite live region. */
function Actions(props: { delivery: DeliveryDetail; onDone: (created?: DeliveryView) => void }) {
  const { delivery } = props;
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const result = useRef<HTMLParagraphElement>(null);
  const base = `/endpoints/${delivery.endpointId}/deliveries/${delivery.id}`;
  const run = async (action: "resend" | "retry") => {
    setOutcome(undefined);
    try {
      const answer = await api<{ delivery: DeliveryView }>("POST", `${base}/${action}`);
      setOutcome({
        kind: "success",
        text:
          action === "resend"
            ? "Resent: a new delivery of the same event is on its way (it appears at the top of the log)."
            : "Retry started: the next attempt is being made now.",
      });
      props.onDone(answer.delivery);
    } catch (failure) {
      const message = failure instanceof Error ? failure.message : String(failure);
      const wait =
        failure instanceof ApiFailure && failure.status === 429 && failure.retryAfterSeconds
          ? ` ${formatRetry(failure.retryAfterSeconds)}`
          : "";
      setOutcome({ kind: "error", text: `${message}${wait}` });
    }
  };
  // After an action focus moves to its result: the Retry now button may be gone by then.
  useFocusWhen(result, outcome !== undefined, [outcome]);
  if (!delivery.canResend && !delivery.canRetryNow && !outcome) return null;
  return (
    <div class="delivery-actions">
      <div class="actions">
        {delivery.canRetryNow && (
          <ActionButton kind="primary" busyLabel="Retrying…" onClick={() => run("retry")}>
            Retry now
          </ActionButton>
        )}
        {delivery.canResend && (
          <ActionButton busyLabel="Resending…" onClick={() => run("resend")}>
            Resend
          </ActionButton>
        )}
      </div>
      <p
        class={`action-outcome small ${outcome?.kind === "error" ? "danger-text" : ""}`}
        role="status"
        aria-live="polite"
        tabIndex={-1}
        ref={result}
        data-testid="delivery-action-result"
      >
        {outcome?.text ?? ""}
      </p>
    </div>
  );
}

export function DeliveryDetailPanel(props: {
  endpointId: string;
  deliveryId: string;
  id: string;
  version: number;
  onChanged: () => void;
}) {
  const detail = useResource<{ delivery: DeliveryDetail }>(
    `/endpoints/${props.endpointId}/deliveries/${props.deliveryId}`,
  );
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening the panel moves focus to it, so a keyboard or screen reader user lands on what opened.
  useFocusWhen(heading, detail.data !== undefined, [detail.data === undefined]);
  useEffect(() => {
    if (props.version > 0) void detail.reload();
  }, [props.version]);
  const d = detail.data?.delivery;
  return (
    <section
      class="delivery-detail"
      id={props.id}
      data-testid="delivery-detail"
      aria-label="Delivery details"
    >
      <ErrorNotice error={detail.error} />
      {!d ? (
        detail.loading && <Loading label="Loading the delivery…" />
      ) : (
        <>
          <h3 ref={heading} tabIndex={-1}>
            {d.eventType} delivery
          </h3>
          <p class="small">
            <CopyId label="delivery id" value={d.id} />
            <br />
            <CopyId label="event id (Svc-Webhook-Id)" value={d.eventId} />
            {d.nextAttemptAt && (
              <span class="block" data-testid="next-attempt">
                Next attempt: <Time iso={d.nextAttemptAt} />
              </span>
            )}
          </p>
          <Actions
            delivery={d}
            onDone={() => {
              void detail.reload();
              props.onChanged();
            }}
          />
          <div class="body-head">
            <h4>Signed body</h4>
            <CopyButton value={d.body} label="signed body" />
          </div>
          <pre class="signed-body" data-testid="signed-body">
            {prettyJson(d.body)}
          </pre>
          <p class="small muted">
            Shown indented for reading; Copy copies the exact bytes that were signed and sent.
          </p>
          <h4>Attempts</h4>
          {d.attempts.length === 0 ? (
            <p class="small muted">No attempt yet.</p>
          ) : (
            <ol class="attempt-details">
              {d.attempts.map((a) => (
                <li data-testid="attempt-detail" data-outcome={a.outcome}>
                  <p>
                    <strong>#{a.number}</strong>{" "}
                    <span class={a.outcome === "failed" ? "danger-text" : ""}>
                      <strong data-testid="attempt-result">{attemptResult(a)}</strong>
                    </span>{" "}
                    · <span data-testid="attempt-duration">{formatDurationMs(a.durationMs)}</span> ·{" "}
                    <Time iso={a.at} />
                  </p>
                  {a.error && a.statusCode === null && <p class="small muted">{a.error}</p>}
                  <Headers attempt={a} kind={d.kind} />
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}
