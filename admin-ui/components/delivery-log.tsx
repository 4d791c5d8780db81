// The delivery log, for debugging deliveries: deliveries newest first with every attempt,
// filtered by event type, status and endpoint or found by event id, paged with "Load more"
// (keyset cursor), each opening to its full detail (body, headers, Resend / Retry now).
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
// The server's list itself: values.ts holds only constants, so no server code is bundled.
import { eventTypes } from "../../src/webhooks/events/types.ts";
import { api } from "../api.ts";
import type { DeliveryView, EndpointView } from "../types.ts";
import { useFocusWhen } from "../use-focus.ts";
import { CopyId } from "./copy.tsx";
import { DeliveryDetailPanel } from "./delivery-detail.tsx";
import { formatDurationMs, localTime } from "./format.ts";
import { Time } from "./time.tsx";
import { Badge, ErrorNotice, formatRemaining, Loading, useNow } from "./ui.tsx";

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

const kindWords = { event: "", test: "test send", verify: "verification send" } as const;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const pageSize = 20;
const maxRefresh = 200;

interface Filters {
  outcome: string;
  type: string;
  endpoint: string;
  event: string;
}
interface Page {
  data: DeliveryView[];
  nextCursor: string | null;
}

function logPath(props: { endpointId?: string | undefined }, filters: Filters, extra: string) {
  const query = new URLSearchParams();
  if (filters.outcome) query.set("outcome", filters.outcome);
  if (filters.type) query.set("type", filters.type);
  if (filters.event) query.set("event", filters.event);
  if (!props.endpointId && filters.endpoint) query.set("endpoint", filters.endpoint);
  const base = props.endpointId ? `/endpoints/${props.endpointId}/deliveries` : "/deliveries";
  return `${base}?${query.toString()}${extra}`;
}

function NextRetry(props: { delivery: DeliveryView; now: number }) {
  const at = props.delivery.nextAttemptAt;
  if (!at) return null;
  const waitMs = new Date(at).getTime() - props.now;
  return (
    <p class="small" data-testid="next-retry">
      {props.delivery.attemptCount === 0 ? "First attempt" : "Next retry"} at{" "}
      <Time iso={at} relative={false} />
      {waitMs > 0 ? ` (in ${formatRemaining(waitMs)})` : " (due now)"}
    </p>
  );
}

function attemptResult(a: DeliveryView["attempts"][number]): string {
  return a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.errorClass ?? "no answer");
}

function DeliveryItem(props: {
  delivery: DeliveryView;
  now: number;
  endpointName: string | undefined;
  open: boolean;
  onToggle: () => void;
  version: number;
  onChanged: () => void;
  /** The first row of a page just loaded with Load more: focus goes to it. */
  focusOnMount: boolean;
}) {
  const d = props.delivery;
  const panelId = `delivery-${d.id}`;
  const toggle = useRef<HTMLButtonElement>(null);
  useFocusWhen(toggle, props.focusOnMount, []);
  return (
    <li
      class="delivery"
      data-testid="delivery"
      data-delivery-id={d.id}
      data-status={d.status}
      data-event-type={d.eventType}
    >
      <div class="card-head">
        <div class="delivery-what">
          <strong>{d.eventType}</strong>{" "}
          <span class="muted small">
            {kindWords[d.kind] && `(${kindWords[d.kind]}) `}
            {d.manual && "(resent) "}· <Time iso={d.createdAt} />
          </span>
          {props.endpointName && (
            <span class="block small muted break">to {props.endpointName}</span>
          )}
        </div>
        <Badge tone={statusTone[d.status]}>{d.status}</Badge>
      </div>
      {d.attempts.length === 0 ? (
        <p class="small muted">No attempt yet.</p>
      ) : (
        <ol class="attempt-list" aria-label={`Attempts of event ${d.eventId}`}>
          {d.attempts.map((a) => (
            <li data-testid="attempt" data-outcome={a.outcome}>
              <span class="muted">#{a.number}</span> <Time iso={a.at} relative={false} /> ·{" "}
              <strong class={a.outcome === "failed" ? "danger-text" : ""}>
                {attemptResult(a)}
              </strong>{" "}
              · {formatDurationMs(a.durationMs)}
              {a.statusCode === null && a.error && <span class="block muted">{a.error}</span>}
            </li>
          ))}
        </ol>
      )}
      <NextRetry delivery={d} now={props.now} />
      {d.status === "cancelled" && d.lastError && (
        <p class="small muted">Cancelled: {d.lastError}</p>
      )}
      {/* Labelled: a delivery's id and its event's id are both UUIDs and look alike. */}
      <p class="small">
        <CopyId label="event id" value={d.eventId} />
      </p>
      <button
        ref={toggle}
        type="button"
        class="button button-small button-secondary"
        aria-expanded={props.open}
        aria-controls={panelId}
        onClick={props.onToggle}
      >
        {props.open ? "Hide details" : "Details"}
        <span class="visually-hidden">
          {" "}
          of the {d.eventType} delivery of {localTime(d.createdAt)}
        </span>
      </button>
      {props.open && (
        <DeliveryDetailPanel
          id={panelId}
          endpointId={d.endpointId}
          deliveryId={d.id}
          version={props.version}
          onChanged={props.onChanged}
        />
      )}
    </li>
  );
}

function FilterBar(props: {
  filters: Filters;
  onFilters: (next: Filters) => void;
  endpoints: EndpointView[] | undefined;
}) {
  const { filters } = props;
  const [event, setEvent] = useState(filters.event);
  const [eventError, setEventError] = useState<string | undefined>(undefined);
  const set = (change: Partial<Filters>) => props.onFilters({ ...filters, ...change });
  return (
    <form
      class="delivery-filters"
      aria-label="Filter deliveries"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const wanted = event.trim().toLowerCase();
        if (wanted && !uuidPattern.test(wanted)) {
          setEventError("Enter a whole event id, e.g. 01890a5d-ac96-7ab2-80e2-4536629c90de.");
          return;
        }
        setEventError(undefined);
        set({ event: wanted });
      }}
    >
      <div class="filter">
        <label for="delivery-type">Event type</label>
        <select
          id="delivery-type"
          value={filters.type}
          onChange={(e) => set({ type: e.currentTarget.value })}
        >
          <option value="">All event types</option>
          {eventTypes.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </div>
      <div class="filter">
        <label for="delivery-outcome">Outcome</label>
        <select
          id="delivery-outcome"
          value={filters.outcome}
          onChange={(e) => set({ outcome: e.currentTarget.value })}
        >
          {outcomes.map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
      </div>
      {props.endpoints && (
        <div class="filter">
          <label for="delivery-endpoint">Endpoint</label>
          <select
            id="delivery-endpoint"
            value={filters.endpoint}
            onChange={(e) => set({ endpoint: e.currentTarget.value })}
          >
            <option value="">All endpoints</option>
            {props.endpoints.map((e) => (
              <option value={e.id}>{e.description ? `${e.description} (${e.url})` : e.url}</option>
            ))}
          </select>
        </div>
      )}
      <div class="filter filter-event">
        <label for="delivery-event">Event id</label>
        <div class="inline-controls">
          <input
            id="delivery-event"
            name="event-id"
            class="mono"
            autoComplete="off"
            spellcheck={false}
            value={event}
            aria-invalid={eventError ? true : undefined}
            aria-describedby={eventError ? "delivery-event-error" : undefined}
            onInput={(e) => setEvent(e.currentTarget.value)}
          />
          <button type="submit" class="button button-secondary">
            Search
          </button>
          {filters.event && (
            <button
              type="button"
              class="button button-secondary"
              onClick={() => {
                setEvent("");
                setEventError(undefined);
                set({ event: "" });
              }}
            >
              Clear
            </button>
          )}
        </div>
        {eventError && (
          <p class="field-error" id="delivery-event-error">
            {eventError}
          </p>
        )}
      </div>
    </form>
  );
}

/**
 * The delivery log of one endpoint (`endpointId`) or of the whole account (`endpoints` given:
 * filter by endpoint too). Refreshes when the page bumps `version`.
 */
export function DeliveryLog(props: {
  endpointId?: string;
  endpoints?: EndpointView[];
  version: number;
  heading?: string;
}) {
  const [filters, setFilters] = useState<Filters>({
    outcome: "",
    type: "",
    endpoint: "",
    event: "",
  });
  const [items, setItems] = useState<DeliveryView[] | undefined>(undefined);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [loadingMore, setLoadingMore] = useState(false);
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  const [focusId, setFocusId] = useState<string | undefined>(undefined);
  const [localVersion, setLocalVersion] = useState(0);
  const now = useNow(1000);
  const shown = useRef(pageSize);
  // One counter orders every load: an answer is applied only if no later load started, so a
  // refresh that was under way when Load more was pressed cannot drop the appended page.
  const request = useRef(0);
  const loadingMoreNow = useRef(false);

  const loadFirst = useCallback(
    async (limit: number, poll: boolean) => {
      if (poll && loadingMoreNow.current) return;
      const mine = ++request.current;
      try {
        const page = await api<Page>("GET", logPath(props, filters, `&limit=${limit}`));
        if (mine !== request.current) return;
        shown.current = Math.max(page.data.length, pageSize);
        setItems(page.data);
        setNextCursor(page.nextCursor);
        setError(undefined);
      } catch (failure) {
        if (mine === request.current) setError(failure);
      }
    },
    [props.endpointId, filters],
  );

  useEffect(() => {
    shown.current = pageSize;
    setItems(undefined);
    void loadFirst(pageSize, false);
  }, [loadFirst]);
  // The page bumps `version` on its own refresh and after every action: reload what is shown.
  const version = props.version + localVersion;
  useEffect(() => {
    if (version > 0) void loadFirst(Math.min(shown.current, maxRefresh), true);
  }, [version]);

  const loadMore = async () => {
    if (!nextCursor || !items) return;
    const mine = ++request.current;
    const before = items;
    loadingMoreNow.current = true;
    setLoadingMore(true);
    try {
      const page = await api<Page>(
        "GET",
        logPath(props, filters, `&limit=${pageSize}&before=${encodeURIComponent(nextCursor)}`),
      );
      if (mine !== request.current) return;
      const next = [...before, ...page.data];
      shown.current = next.length;
      setFocusId(page.data[0]?.id);
      setItems(next);
      setNextCursor(page.nextCursor);
    } catch (failure) {
      if (mine === request.current) setError(failure);
    } finally {
      loadingMoreNow.current = false;
      setLoadingMore(false);
    }
  };

  const names = new Map((props.endpoints ?? []).map((e) => [e.id, e.description || e.url]));
  const filtered = filters.outcome || filters.type || filters.endpoint || filters.event;
  return (
    <section aria-labelledby="delivery-log-heading" class="delivery-log">
      <div class="section-head">
        <h2 id="delivery-log-heading">{props.heading ?? "Delivery log"}</h2>
        <button
          type="button"
          class="button button-secondary"
          onClick={() => setLocalVersion((v) => v + 1)}
        >
          Refresh
        </button>
      </div>
      <p class="muted small">
        Failed events are retried 1 min, 5 min, 30 min, 2 h, 12 h and 24 h after the previous
        attempt, then dropped. Tests and verification sends are tried once.
      </p>
      <FilterBar filters={filters} onFilters={setFilters} endpoints={props.endpoints} />
      <ErrorNotice error={error} />
      <p class="visually-hidden" role="status" aria-live="polite">
        {items
          ? `${items.length} deliver${items.length === 1 ? "y" : "ies"} shown${nextCursor ? ", more available" : ""}.`
          : ""}
      </p>
      {items === undefined ? (
        !error && <Loading label="Loading deliveries…" />
      ) : items.length === 0 ? (
        <p class="empty">
          {filtered ? "No delivery matches these filters." : "Nothing delivered yet."}
        </p>
      ) : (
        <>
          <ul class="deliveries">
            {items.map((delivery) => (
              <DeliveryItem
                key={delivery.id}
                delivery={delivery}
                now={now}
                endpointName={props.endpointId ? undefined : names.get(delivery.endpointId)}
                open={openId === delivery.id}
                onToggle={() => setOpenId(openId === delivery.id ? undefined : delivery.id)}
                version={version}
                onChanged={() => setLocalVersion((v) => v + 1)}
                focusOnMount={delivery.id === focusId}
              />
            ))}
          </ul>
          {nextCursor && (
            <button
              type="button"
              class="button button-secondary load-more"
              disabled={loadingMore}
              aria-busy={loadingMore}
              onClick={loadMore}
            >
              {loadingMore ? "Loading…" : "Load more"}
            </button>
          )}
        </>
      )}
    </section>
  );
}
