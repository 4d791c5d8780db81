// Simulate activity on a sandbox connection (like `stripe trigger`): the owner picks what the
// bank does now, the server syncs at once, and the account events go to the owner's endpoints.
import { useState } from "preact/hooks";
import { connectionStatuses } from "../../src/db/schema/values.ts";
import { api } from "../api.ts";
import type { OwnConnectionView, SimulationResult } from "../types.ts";
import { useAction } from "../use-action.ts";
import { Feedback } from "./feedback.tsx";
import { ActionButton, Field } from "./ui.tsx";

const kinds = [
  ["transactions", "New transactions (account.transactions.available, account.balance.updated)"],
  ["booking", "A pending card payment books (account.transactions.available)"],
  ["balance", "The balance changes (account.balance.updated)"],
  ["status", "The connection status changes (connection.status.changed)"],
] as const;
type Kind = (typeof kinds)[number][0];

export function SimulateActivity(props: {
  connection: OwnConnectionView;
  onDone: () => Promise<void>;
}) {
  const c = props.connection;
  const [kind, setKind] = useState<Kind>("transactions");
  const [accountId, setAccountId] = useState(c.accounts[0]?.id ?? "");
  const defaultStatus = c.status === "linked" ? "awaiting_auth" : "linked";
  const [status, setStatus] = useState<string>(defaultStatus);
  const simulate = useAction();
  return (
    <details class="simulate" data-testid="simulate-activity">
      <summary>Simulate activity</summary>
      <p class="small">
        Make the sandbox bank do something now; it is synced at once and the account event goes to
        your verified endpoints, so you can try each event type on demand.
      </p>
      <Field label="What happens">
        {(ids) => (
          <select {...ids} value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {kinds.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        )}
      </Field>
      {kind === "status" ? (
        <Field label="New status">
          {(ids) => (
            <select {...ids} value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
              {connectionStatuses.map((s) => (
                <option value={s}>{s.replace("_", " ")}</option>
              ))}
            </select>
          )}
        </Field>
      ) : (
        c.accounts.length > 1 && (
          <Field label="Account">
            {(ids) => (
              <select
                {...ids}
                value={accountId}
                onChange={(e) => setAccountId(e.currentTarget.value)}
              >
                {c.accounts.map((a) => (
                  <option value={a.id}>{a.name}</option>
                ))}
              </select>
            )}
          </Field>
        )
      )}
      <div class="actions">
        <ActionButton
          busyLabel="Simulating…"
          onClick={() =>
            simulate.run(async () => {
              const result = await api<SimulationResult>("POST", `/connections/${c.id}/simulate`, {
                kind,
                ...(kind === "status" ? { status } : accountId ? { accountId } : {}),
              });
              await props.onDone();
              const events =
                result.expectedEvents.length > 0
                  ? ` Events: ${result.expectedEvents.join(", ")}.`
                  : "";
              const failed =
                result.sync?.outcome === "failed" ? ` The sync failed: ${result.sync.error}` : "";
              return `Simulated: ${result.summary}.${events}${failed}`;
            })
          }
        >
          Simulate
        </ActionButton>
      </div>
      <Feedback action={simulate} />
    </details>
  );
}
