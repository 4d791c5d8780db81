import { useCallback, useEffect, useState } from "preact/hooks";
import type { DeliveryView } from "../types.ts";
import { useResource } from "../use-resource.ts";
import { ListState } from "./list-state.tsx";
import { Badge, formatRemaining, formatTime, useNow } from "./ui.tsx";

const outcomes = [
  ["", "All outcomes"],
  ["pending", "Pending (will retry)"],
  ["succeeded", "Succeeded"],
  ["failed", "Failed"],
  ["cancelled", "Cancelled"],
  ["dropped", "Dropped after the last retry"],
] as const;

const statusTone = {
  succeeded: "good",
  pending: "warn",
  failed: "bad",
  dropped: "bad",
  cancelled: "neutral",
} as const;

const kindWords = { event: "", test: "Test", verify: "verification send" } as const;

function NextRetry(props: { delivery: DeliveryView; now: number }) {
  const at = props.delivery.nextAttemptAt;
  if (!at) return null;
  const waitMs = new Date(at).getTime() - props.now;
  return (
    <p class="small" data-testid="next-retry">
      {props.delivery.attemptCount === 0 ? "First attempt" : "Next retry"} at {formatTime(at)}
      {waitMs > 0 ? ` (in ${formatRemaining(waitMs)})` : " (due now)"}
    </p>
  );
}

function attemptResult(a: DeliveryView["attempts"][number]): string {
  return a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.errorClass ?? "no answer");
}

function DeliveryItem(props: { delivery: DeliveryView; now: number }) {
  const d = props.delivery;
  return (
    <li
      class="delivery"
      data-testid="delivery"
      data-status={d.status}
      data-event-type={d.eventType}
    >
      <div class="card-head">
        <div class="delivery-what">
          <strong>{d.eventType}</strong>{" "}
          <span class="muted small">
            {kindWords[d.kind] && `(${kindWords[d.kind]}) `}· {formatTime(d.createdAt)}
          </span>
        </div>
        <Badge tone={statusTone[d.status]}>{d.status}</Badge>
      </div>
      {d.attempts.length === 0 ? (
        <p class="small muted">No attempt yet.</p>
      ) : (
        <ol class="attempt-list" aria-label={`Attempts of event ${d.eventId}`}>
          {d.attempts.map((a) => (
            <li data-testid="attempt" data-outcome={a.outcome}>
              <span class="muted">#{a.number}</span> {formatTime(a.at)} ·{" "}
              <strong class={a.outcome === "failed" ? "danger-text" : ""}>
                {attemptResult(a)}
              </strong>{" "}
              · {a.durationMs} ms
              {a.statusCode === null && a.error && <span class="block muted">{a.error}</span>}
            </li>
          ))}
        </ol>
      )}
      <NextRetry delivery={d} now={props.now} />
      {d.status === "cancelled" && d.lastError && (
        <p class="small muted">Cancelled: {d.lastError}</p>
      )}
      <p class="small muted mono break">event {d.eventId}</p>
    </li>
  );
}

/** The endpoint's deliveries with every attempt, newest first; refreshes itself. */
const pageSize = 20;
const maxShown = 200;

export function DeliveryLog(props: { endpointId: string; version: number }) {
  const [outcome, setOutcome] = useState("");
  const [limit, setLimit] = useState(pageSize);
  const log = useResource<{ data: DeliveryView[] }>(
    `/endpoints/${props.endpointId}/deliveries?limit=${limit}${outcome ? `&outcome=${outcome}` : ""}`,
  );
  const now = useNow(1000);
  const refresh = useCallback(() => void log.reload(), [log.reload]);
  // The page bumps `version` on its own refresh and after every action.
  useEffect(() => {
    if (props.version > 0) refresh();
  }, [props.version]);
  const list = log.data?.data ?? [];
  return (
    <section aria-labelledby="delivery-log-heading">
      <div class="section-head">
        <h2 id="delivery-log-heading">Delivery log</h2>
        <div class="inline-controls">
          <label for="delivery-outcome">Outcome</label>
          <select
            id="delivery-outcome"
            value={outcome}
            onChange={(e) => {
              setOutcome(e.currentTarget.value);
              setLimit(pageSize);
            }}
          >
            {outcomes.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
          <button type="button" class="button button-secondary" onClick={refresh}>
            Refresh
          </button>
        </div>
      </div>
      <p class="muted small">
        Failed events are retried 1 min, 5 min, 30 min, 2 h, 12 h and 24 h after the previous
        attempt, then dropped. Tests and verification sends are tried once.
      </p>
      <ListState
        resource={log}
        count={list.length}
        empty={outcome ? "No delivery with this outcome." : "Nothing delivered yet."}
      >
        <ul class="deliveries">
          {list.map((delivery) => (
            <DeliveryItem key={delivery.id} delivery={delivery} now={now} />
          ))}
        </ul>
        {list.length >= limit && limit < maxShown && (
          <button
            type="button"
            class="button button-secondary"
            onClick={() => setLimit(Math.min(limit + pageSize * 2, maxShown))}
          >
            Show older deliveries
          </button>
        )}
      </ListState>
    </section>
  );
}
