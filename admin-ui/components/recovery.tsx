// Recover, beside Resend: re-send every event of a window whose delivery to this endpoint failed
// for good (or was cut when the endpoint was disabled), paced, one recovery at a time. Shows how
// many would go, how many stay unsent (raised while the endpoint could not receive: those are
// read from /v1/events), and the running recovery's progress with Cancel.
import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import type { EndpointView, RecoveryPreview, RecoveryView } from "../types.ts";
import { useAction } from "../use-action.ts";
import { Feedback } from "./feedback.tsx";
import { Time } from "./time.tsx";
import { ActionButton, Field, usePolling } from "./ui.tsx";

const hourMs = 3_600_000;

/** A datetime-local value (the browser's time zone) for an instant. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function isoOf(local: string): string | undefined {
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

function Progress(props: { recovery: RecoveryView }) {
  const r = props.recovery;
  return (
    <div data-testid="recovery-progress">
      <p>
        <strong>
          {r.status === "running" ? "Recovering" : `Recovery ${r.status}`}
          {r.stopReason && r.status !== "cancelled" ? ` (${r.stopReason})` : ""}
        </strong>
        : {r.sent} of {r.total} re-sent — {r.delivered} delivered, {r.failed} failed, {r.inFlight}{" "}
        in flight
        {r.cancelled > 0 ? `, ${r.cancelled} cancelled` : ""}.
      </p>
      <progress max={Math.max(r.total, 1)} value={r.sent} aria-label="Events re-sent" />
      <p class="hint">
        Window <Time iso={r.since} relative={false} /> to <Time iso={r.until} relative={false} />,
        at most {r.pacePerSecond} a second. Started <Time iso={r.createdAt} />.
      </p>
    </div>
  );
}

function Unsent(props: { count: number }) {
  if (props.count === 0) return null;
  return (
    <p class="notice notice-info" data-testid="recovery-unsent">
      {props.count} event{props.count === 1 ? " was" : "s were"} raised while this endpoint was
      paused, disabled or unverified. They are never sent later; your receiver reads them with{" "}
      <code>GET /v1/events</code>.
    </p>
  );
}

export function RecoverSection(props: { endpoint: EndpointView }) {
  const { endpoint } = props;
  const base = `/endpoints/${endpoint.id}/recoveries`;
  const [since, setSince] = useState(() => localInput(Date.now() - 24 * hourMs));
  const [until, setUntil] = useState(() => localInput(Date.now()));
  const [preview, setPreview] = useState<RecoveryPreview | undefined>(undefined);
  const [latest, setLatest] = useState<RecoveryView | undefined>(undefined);
  const start = useAction();
  const cancel = useAction();
  const load = useCallback(async () => {
    const { data } = await api<{ data: RecoveryView[] }>("GET", base);
    setLatest(data[0]);
  }, [base]);
  useEffect(() => {
    void load();
  }, [load]);
  // Progress moves a step a second while a recovery runs.
  usePolling(() => {
    if (latest?.status === "running" || (latest?.inFlight ?? 0) > 0) void load();
  }, 1000);
  const chosenWindow = () => {
    const s = isoOf(since);
    const u = isoOf(until);
    return s ? { since: s, ...(u ? { until: u } : {}) } : undefined;
  };
  useEffect(() => {
    const w = chosenWindow();
    setPreview(undefined);
    if (!w) return;
    const query = new URLSearchParams(w).toString();
    api<RecoveryPreview>("GET", `${base}/preview?${query}`).then(setPreview, () => {});
  }, [since, until, base]);
  const receiving = endpoint.status === "active" && endpoint.verified;
  const running = latest?.status === "running";
  return (
    <section class="card" aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover failed deliveries</h2>
      <p>
        Re-sends, in the order they were raised, every event of a time window whose delivery here
        failed for good (all retries used) or was cut when the endpoint was disabled — as new manual
        deliveries with the same event id and body, signed with the current secret. At most 10 a
        second; one recovery at a time; 10 recoveries and 10,000 events a day per account.
      </p>
      <div class="inline-fields">
        <Field label="From">
          {(ids) => (
            <input
              {...ids}
              type="datetime-local"
              name="since"
              value={since}
              onInput={(e) => setSince(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="To">
          {(ids) => (
            <input
              {...ids}
              type="datetime-local"
              name="until"
              value={until}
              onInput={(e) => setUntil(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <div aria-live="polite">
        {preview && (
          <p data-testid="recovery-preview">
            {preview.recoverable} failed deliver{preview.recoverable === 1 ? "y" : "ies"} in this
            window would be re-sent.
          </p>
        )}
        {preview && <Unsent count={preview.unsent} />}
      </div>
      {!receiving && (
        <p class="hint">Only an active, verified endpoint can recover its deliveries.</p>
      )}
      <ActionButton
        kind="primary"
        busyLabel="Starting…"
        disabled={!receiving || running || preview?.recoverable === 0}
        onClick={() =>
          start.run(async () => {
            const w = chosenWindow();
            if (!w) throw new Error("Choose when the window starts.");
            const { recovery } = await api<{ recovery: RecoveryView }>("POST", base, w);
            setLatest(recovery);
            return `Recovery started: ${recovery.total} to re-send.`;
          })
        }
      >
        Recover
      </ActionButton>
      <Feedback action={start} />
      {latest && <Progress recovery={latest} />}
      {running && (
        <>
          <ActionButton
            kind="danger"
            busyLabel="Cancelling…"
            onClick={() =>
              cancel.run(async () => {
                const { recovery } = await api<{ recovery: RecoveryView }>(
                  "POST",
                  `${base}/cancel`,
                );
                setLatest(recovery);
                return "Recovery cancelled.";
              })
            }
          >
            Cancel recovery
          </ActionButton>
          <Feedback action={cancel} />
        </>
      )}
    </section>
  );
}
