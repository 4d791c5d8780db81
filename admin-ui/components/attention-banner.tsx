// The banner on every page while something needs the owner:
// a disabled endpoint (reason, date, Enable: spec 3, nothing raised meanwhile is replayed) or
// a connection in expired, suspended, error or awaiting_auth, or a consent that ends soon (the
// owner was warned 7 days and 1 day before).
import { useCallback, useEffect } from "preact/hooks";
import { api } from "../api.ts";
import type { Attention } from "../types.ts";
import { type Action, useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";
import { Feedback } from "./feedback.tsx";
import { Time } from "./time.tsx";
import { usePolling } from "./ui.tsx";

const attentionChanged = "svc:attention-changed";

/** Pages call this after an action that may change what needs attention. */
export function announceAttentionChange(): void {
  window.dispatchEvent(new Event(attentionChanged));
}

const connectionWords: Record<Attention["connections"][number]["status"], string> = {
  awaiting_auth: "waits for you to authorise it at the bank",
  expired: "has expired: connect it again",
  suspended: "is suspended",
  error: "reported an error",
};

function DisabledEndpoint(props: {
  endpoint: Attention["disabledEndpoints"][number];
  enable: Action;
  onEnabled: () => Promise<void>;
}) {
  const { endpoint, enable } = props;
  const name = endpoint.description || endpoint.url;
  return (
    <li data-testid="attention-endpoint">
      <span>
        Webhook endpoint <a href={`#/webhooks/${endpoint.id}`}>{name}</a> is disabled
        {endpoint.disabledAt && (
          <>
            {" "}
            since <Time iso={endpoint.disabledAt} />
          </>
        )}
        {endpoint.disabledReason && <>: {endpoint.disabledReason}</>}. Nothing is sent to it.
      </span>{" "}
      <button
        type="button"
        class="button button-small button-primary"
        disabled={enable.busy}
        aria-label={`Enable ${name}`}
        onClick={() =>
          enable.run(async () => {
            await api("POST", `/endpoints/${endpoint.id}/enable`);
            await props.onEnabled();
            return `Enabled ${name}: new events are sent to it again; events raised while it was disabled are not replayed.`;
          })
        }
      >
        {enable.busy ? "Enabling…" : "Enable"}
      </button>
    </li>
  );
}

export function AttentionBanner(props: { route: string }) {
  const attention = useResource<Attention>("/overview/attention");
  const reload = attention.reload;
  const enabled = useAction();
  const refresh = useCallback(() => void reload(), [reload]);
  useEffect(() => {
    void reload();
  }, [props.route, reload]);
  useEffect(() => {
    window.addEventListener(attentionChanged, refresh);
    return () => window.removeEventListener(attentionChanged, refresh);
  }, [refresh]);
  usePolling(refresh, 30_000);
  const a = attention.data;
  const count = a ? a.disabledEndpoints.length + a.connections.length + a.consentsEnding.length : 0;
  return (
    <>
      {a && count > 0 && (
        // Not a heading: the banner comes before each page's h1 and must not break their order.
        <section class="attention" aria-label="Needs your attention" data-testid="attention">
          <p class="attention-title">
            <strong>Needs your attention</strong>
          </p>
          <ul class="attention-list">
            {a.disabledEndpoints.map((endpoint) => (
              <DisabledEndpoint
                key={endpoint.id}
                endpoint={endpoint}
                enable={enabled}
                onEnabled={async () => {
                  await reload();
                  announceAttentionChange();
                }}
              />
            ))}
            {a.connections.map((connection) => (
              <li key={connection.id} data-testid="attention-connection">
                Bank connection <a href="#/connections">{connection.institution}</a>{" "}
                {connectionWords[connection.status]}
                {connection.error && <>: {connection.error}</>} (since{" "}
                <Time iso={connection.since} />
                ).
              </li>
            ))}
            {a.consentsEnding.map((consent) => (
              <li key={`consent-${consent.id}`} data-testid="attention-consent">
                The bank's consent for <a href="#/connections">{consent.institution}</a> ends{" "}
                <Time iso={consent.consentExpiresAt} />: renew it to keep data coming.
              </li>
            ))}
          </ul>
        </section>
      )}
      {/* Outside the list, so it stays (and takes focus) when the last item was enabled. */}
      <Feedback action={enabled} testId="attention-feedback" />
    </>
  );
}
