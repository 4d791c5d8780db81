// Operators: one account's bank connections, opened from its card on the Accounts
// page. Each shows its provider, status and last sync, the connection id and its bank
// accounts' ids with copy buttons, and Remove after a confirmation that says what goes. No
// balances: operators see metadata only.
import type { OperatorConnectionView } from "../types.ts";
import { useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";
import { ConnectionStatusBadge, providerName, RemoveConnectionButton } from "./connect-bank.tsx";
import { CopyId } from "./copy.tsx";
import { Feedback } from "./feedback.tsx";
import { ListState } from "./list-state.tsx";
import { Time } from "./time.tsx";

export function AccountConnections(props: { accountId: string; accountName: string }) {
  const connections = useResource<{ data: OperatorConnectionView[] }>(
    `/operator/connections?account=${encodeURIComponent(props.accountId)}`,
  );
  const removal = useAction();
  const list = connections.data?.data ?? [];
  const headingId = `connections-${props.accountId}`;
  return (
    <section
      class="account-connections"
      aria-labelledby={headingId}
      data-testid="account-connections"
    >
      <h2 id={headingId} class="subheading">
        Bank connections of {props.accountName}
      </h2>
      {/* Outside the list: a removed connection's item is gone, its outcome stays here. */}
      <Feedback action={removal} testId="removal-feedback" />
      <ListState resource={connections} count={list.length} empty="No bank connections.">
        <ul class="connection-list">
          {list.map((c) => (
            <li key={c.id} data-testid="operator-connection" data-connection-id={c.id}>
              <div class="card-head">
                <div>
                  <strong>{c.institution}</strong>
                  <div class="muted small">
                    {providerName(c.provider)} · connected <Time iso={c.createdAt} /> · last synced{" "}
                    <Time iso={c.lastSyncedAt} empty="never" />
                    {c.consentExpiresAt && (
                      <>
                        {" "}
                        · consent until <Time iso={c.consentExpiresAt} />
                      </>
                    )}
                  </div>
                  <CopyId label="connection id" value={c.id} />
                </div>
                <ConnectionStatusBadge status={c.status} />
              </div>
              {c.error && <p class="small">Error: {c.error}</p>}
              {c.notice && <p class="small">Notice: {c.notice}</p>}
              {c.accounts.length === 0 ? (
                <p class="small muted">No bank accounts.</p>
              ) : (
                <ul class="bank-account-list" aria-label={`Bank accounts of ${c.institution}`}>
                  {c.accounts.map((a) => (
                    <li key={a.id} data-testid="operator-bank-account">
                      <span class="small">
                        {a.name} ({a.type.replace("_", " ")}, {a.currency})
                      </span>{" "}
                      <CopyId label="bank account id" value={a.id} />
                    </li>
                  ))}
                </ul>
              )}
              <div class="actions">
                <RemoveConnectionButton
                  id={c.id}
                  institution={c.institution}
                  provider={c.provider}
                  account={props.accountName}
                  action={removal}
                  onRemoved={connections.reload}
                />
              </div>
            </li>
          ))}
        </ul>
      </ListState>
    </section>
  );
}
