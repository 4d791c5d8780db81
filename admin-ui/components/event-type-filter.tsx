// The endpoint's event-type filter: which account event types
// it receives. All ticked is saved as null (every type, also ones added later); none ticked is
// refused here, before the server would refuse it. webhook.verify and webhook.test are not
// listed: they always reach the endpoint. The types and what each means to the owner come from
// the server's event catalog.
import { useEffect, useState } from "preact/hooks";
import { accountEventTypes, eventCatalog } from "../../src/webhooks/events/types.ts";
import { api } from "../api.ts";
import type { EndpointView } from "../types.ts";
import { ActionButton } from "./ui.tsx";

export function EventTypeFilter(props: {
  endpoint: EndpointView;
  onSaved: (endpoint: EndpointView) => void;
}) {
  const saved = props.endpoint.eventTypes;
  const [chosen, setChosen] = useState<string[]>(saved ?? [...accountEventTypes]);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const savedKey = JSON.stringify(saved);
  // Another tab or the CLI may change it: follow the saved value until the user edits.
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty) setChosen(saved ?? [...accountEventTypes]);
  }, [savedKey]);
  return (
    <section class="card" aria-labelledby="event-types-heading" data-testid="event-type-filter">
      <h2 id="event-types-heading">Event types</h2>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
        }}
      >
        <fieldset class="checkboxes event-type-options">
          <legend>Send these account events to this endpoint</legend>
          {accountEventTypes.map((type) => (
            <label>
              <input
                type="checkbox"
                name="event-type"
                value={type}
                checked={chosen.includes(type)}
                onChange={(e) => {
                  setDirty(true);
                  setOutcome(undefined);
                  const on = e.currentTarget.checked;
                  setChosen((list) => (on ? [...list, type] : list.filter((t) => t !== type)));
                }}
              />
              <span>
                <code>{type}</code>
                <span class="block muted small">{eventCatalog[type].portalLabel}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <p class="small muted">
          <code>webhook.verify</code> and <code>webhook.test</code> always reach the endpoint.
          Events of an unticked type are not sent here (nor later).
        </p>
        <ActionButton
          kind="primary"
          busyLabel="Saving…"
          onClick={async () => {
            setOutcome(undefined);
            if (chosen.length === 0) {
              setOutcome({
                ok: false,
                text: "Tick at least one event type (or pause the endpoint to receive nothing).",
              });
              return;
            }
            const all = accountEventTypes.every((t) => chosen.includes(t));
            try {
              const answer = await api<{ endpoint: EndpointView }>(
                "PATCH",
                `/endpoints/${props.endpoint.id}`,
                { eventTypes: all ? null : accountEventTypes.filter((t) => chosen.includes(t)) },
              );
              setDirty(false);
              setOutcome({
                ok: true,
                text: all
                  ? "Saved: this endpoint receives every account event type."
                  : `Saved: this endpoint receives ${answer.endpoint.eventTypes?.join(", ")}.`,
              });
              props.onSaved(answer.endpoint);
            } catch (failure) {
              setOutcome({
                ok: false,
                text: failure instanceof Error ? failure.message : String(failure),
              });
            }
          }}
        >
          Save event types
        </ActionButton>
        <p
          class={`action-outcome small ${outcome && !outcome.ok ? "danger-text" : ""}`}
          role="status"
          aria-live="polite"
          data-testid="event-types-result"
        >
          {outcome?.text ?? ""}
        </p>
      </form>
    </section>
  );
}
