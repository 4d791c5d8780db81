import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { announceAttentionChange } from "../components/attention-banner.tsx";
import {
  ConnectBankCard,
  ConnectionStatusBadge,
  providerName,
  RemoveConnectionButton,
  RenewConnection,
} from "../components/connect-bank.tsx";
import { CopyId } from "../components/copy.tsx";
import { Feedback } from "../components/feedback.tsx";
import { formatMoney } from "../components/format.ts";
import { ListState } from "../components/list-state.tsx";
import { SimulateActivity } from "../components/simulate-activity.tsx";
import { Time } from "../components/time.tsx";
import { ActionButton, formatTime, Notice } from "../components/ui.tsx";
import type { OwnConnectionView, SyncResult } from "../types.ts";
import { type Action, useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";

function describeSync(result: SyncResult): { kind: "success" | "info" | "error"; text: string } {
  switch (result.outcome) {
    case "succeeded":
      return {
        kind: "success",
        text: `Synced: ${result.newTransactions} new transaction${result.newTransactions === 1 ? "" : "s"}, ${result.eventsRaised} event${result.eventsRaised === 1 ? "" : "s"} raised.`,
      };
    case "failed":
      return { kind: "error", text: `The sync failed: ${result.error}` };
    case "busy":
      return { kind: "info", text: "A sync of this connection is running now; try again shortly." };
    case "too_soon":
      return {
        kind: "info",
        text: `Synced very recently. The next sync is allowed at ${formatTime(result.nextAllowedAt)}.`,
      };
  }
}

function ConnectionCard(props: {
  connection: OwnConnectionView;
  onSynced: () => Promise<void>;
  removal: Action;
}) {
  const c = props.connection;
  const [result, setResult] = useState<SyncResult | undefined>(undefined);
  const sync = useAction();
  const described = result ? describeSync(result) : undefined;
  return (
    <li class="card" data-testid="connection" data-connection-id={c.id}>
      <div class="card-head">
        <div>
          <strong>{c.institution}</strong>
          <div class="muted small">
            {providerName(c.provider)} · connected <Time iso={c.createdAt} />
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
      {c.error && <Notice kind="error">{c.error}</Notice>}
      {c.notice && (
        <Notice kind="info">
          <span data-testid="connection-notice">From your bank: {c.notice}</span>
        </Notice>
      )}
      <p class="small">
        Last synced: <Time iso={c.lastSyncedAt} empty="never" />
        {c.lastSync && (
          <>
            {" "}
            · last run {c.lastSync.outcome} ({c.lastSync.trigger},{" "}
            <Time iso={c.lastSync.startedAt} />)
          </>
        )}
      </p>
      {c.accounts.length === 0 ? (
        <p class="small muted">No accounts yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="responsive-table">
            <caption class="visually-hidden">Accounts of {c.institution}</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Type</th>
                <th scope="col">Balance</th>
                <th scope="col">Available</th>
                <th scope="col">As of</th>
              </tr>
            </thead>
            <tbody>
              {c.accounts.map((a) => (
                <tr data-testid="bank-account">
                  <td data-label="Account">
                    <span>
                      {a.name}
                      {a.mask && <span class="muted"> ···{a.mask}</span>}
                      <br />
                      <CopyId label="account id" value={a.id} />
                    </span>
                  </td>
                  <td data-label="Type">{a.type.replace("_", " ")}</td>
                  <td data-label="Balance" class="num" data-testid="balance">
                    {a.balance
                      ? formatMoney(a.balance.current, a.balance.currency)
                      : "After first sync"}
                  </td>
                  <td data-label="Available" class="num">
                    {a.balance?.available
                      ? formatMoney(a.balance.available, a.balance.currency)
                      : "—"}
                  </td>
                  <td data-label="As of">
                    <Time iso={a.balance?.fetchedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div aria-live="polite">
        {described && <Notice kind={described.kind}>{described.text}</Notice>}
      </div>
      <Feedback action={sync} />
      {c.pullable ? (
        <div class="actions">
          <ActionButton
            busyLabel="Syncing…"
            onClick={() =>
              sync.run(async () => {
                setResult(undefined);
                setResult(await api<SyncResult>("POST", `/connections/${c.id}/sync`));
                await props.onSynced();
              })
            }
          >
            Sync now
          </ActionButton>
        </div>
      ) : (
        <p class="small muted">Data for this connection is sent in by the operator.</p>
      )}
      {c.provider === "sandbox" && <SimulateActivity connection={c} onDone={props.onSynced} />}
      <div class="actions">
        <RenewConnection connection={c} onRenewed={props.onSynced} />
        <RemoveConnectionButton
          id={c.id}
          institution={c.institution}
          provider={c.provider}
          action={props.removal}
          onRemoved={props.onSynced}
        />
      </div>
    </li>
  );
}

export function ConnectionsPage() {
  const connections = useResource<{ data: OwnConnectionView[] }>("/connections");
  const connect = useAction();
  const removal = useAction();
  const reload = async () => {
    await connections.reload();
    announceAttentionChange();
  };
  const list = connections.data?.data ?? [];
  return (
    <section>
      <h1>Bank connections</h1>
      <section class="card" aria-labelledby="connect-heading">
        <h2 id="connect-heading">Connect the sandbox bank</h2>
        <p>
          The sandbox bank is a simulated customer with two or three accounts and 90 days of
          history. Connecting raises <code>connection.status.changed</code> events; a sync brings
          transactions and balances and raises the account events. Each sandbox connection below has{" "}
          <em>Simulate activity</em>, to make any account event happen now.
        </p>
        <ActionButton
          kind="primary"
          busyLabel="Connecting…"
          onClick={() =>
            connect.run(async () => {
              await api("POST", "/connections/sandbox", {});
              await connections.reload();
              return "Connected the sandbox bank: it is listed below. Sync it to get data.";
            })
          }
        >
          Connect the sandbox bank
        </ActionButton>
        <Feedback action={connect} />
      </section>
      <ConnectBankCard onLinked={connections.reload} />
      <h2>Connections</h2>
      {/* Outside the cards: a removed connection's card is gone, its outcome stays here. */}
      <Feedback action={removal} testId="removal-feedback" />
      <ListState resource={connections} count={list.length} empty="No bank connections yet.">
        <ul class="cards">
          {list.map((connection) => (
            <ConnectionCard
              key={connection.id}
              connection={connection}
              onSynced={reload}
              removal={removal}
            />
          ))}
        </ul>
      </ListState>
    </section>
  );
}
