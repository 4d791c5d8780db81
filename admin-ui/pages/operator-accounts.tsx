import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { CopyId } from "../components/copy.tsx";
import { ListState } from "../components/list-state.tsx";
import { AccountConnections } from "../components/operator-connections.tsx";
import { Time } from "../components/time.tsx";
import { ActionButton, Badge, ErrorNotice, Notice } from "../components/ui.tsx";
import { useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";

interface Account {
  id: string;
  name: string;
  status: "sandbox" | "active" | "lapsed";
  subscriptionStatus: "active" | "trialing" | "past_due" | "canceled" | "none";
  paymentFailed: boolean;
  disabled: boolean;
  demo: boolean;
  connectEnabled: boolean;
  createdAt: string;
  users: { id: string; email: string; isOperator: boolean }[];
}

const statuses = ["sandbox", "active", "lapsed"] as const;
const subscriptions = ["active", "trialing", "past_due", "canceled", "none"] as const;
const flags = [
  ["paymentFailed", "Renewal payment failed"],
  ["disabled", "Disabled"],
  ["demo", "Demo account"],
  ["connectEnabled", "Connect feature available"],
] as const;

function AccountEditor(props: { account: Account; onSaved: () => Promise<void> }) {
  const [draft, setDraft] = useState(props.account);
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const prefix = `account-${props.account.id}`;
  return (
    <form
      class="account-editor"
      aria-label={`Edit ${props.account.name}`}
      onSubmit={(e) => e.preventDefault()}
    >
      <ErrorNotice error={save.error} />
      {saved && (
        <Notice kind="success">
          Saved. API calls with this account's keys follow the new state at once.
        </Notice>
      )}
      <div class="inline-fields">
        <label>
          Status
          <select
            name="status"
            id={`${prefix}-status`}
            value={draft.status}
            onChange={(e) =>
              setDraft({ ...draft, status: e.currentTarget.value as Account["status"] })
            }
          >
            {statuses.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Subscription
          <select
            name="subscription"
            id={`${prefix}-subscription`}
            value={draft.subscriptionStatus}
            onChange={(e) =>
              setDraft({
                ...draft,
                subscriptionStatus: e.currentTarget.value as Account["subscriptionStatus"],
              })
            }
          >
            {subscriptions.map((s) => (
              <option value={s}>{s.replace("_", " ")}</option>
            ))}
          </select>
        </label>
      </div>
      <fieldset class="checkboxes">
        <legend>Flags</legend>
        {flags.map(([key, label]) => (
          <label>
            <input
              type="checkbox"
              name={key}
              checked={draft[key]}
              onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.checked })}
            />
            {label}
          </label>
        ))}
      </fieldset>
      <ActionButton
        kind="primary"
        busyLabel="Saving…"
        onClick={() =>
          save.run(async () => {
            setSaved(false);
            await api("PATCH", `/operator/accounts/${props.account.id}`, {
              status: draft.status,
              subscriptionStatus: draft.subscriptionStatus,
              paymentFailed: draft.paymentFailed,
              disabled: draft.disabled,
              demo: draft.demo,
              connectEnabled: draft.connectEnabled,
            });
            setSaved(true);
            await props.onSaved();
          })
        }
      >
        Save changes
      </ActionButton>
    </form>
  );
}

export function OperatorAccountsPage() {
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState<string | undefined>(undefined);
  /** Accounts whose connections are shown (several may be open at once). */
  const [showing, setShowing] = useState<ReadonlySet<string>>(new Set());
  const toggleConnections = (id: string) =>
    setShowing((now) => {
      const next = new Set(now);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const accounts = useResource<{ data: Account[] }>(
    `/operator/accounts${query ? `?search=${encodeURIComponent(query)}` : ""}`,
  );
  return (
    <section>
      <h1>Service accounts</h1>
      <p>
        <a href="#/operator/new-account">Create an account</a> ·{" "}
        <a href="#/operator/import">Import bank data</a>
      </p>
      <form
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search.trim());
        }}
      >
        <label for="account-search">Search by id, name, e-mail or connection id</label>
        <input
          id="account-search"
          type="search"
          value={search}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <button type="submit" class="button button-secondary">
          Search
        </button>
      </form>
      <ListState
        resource={accounts}
        count={accounts.data?.data.length ?? 0}
        empty="No account matches."
      >
        <ul class="cards">
          {accounts.data?.data.map((account) => (
            <li class="card" data-testid="account-card" data-account-id={account.id}>
              <div class="card-head">
                <div>
                  <strong>{account.name}</strong>
                  <div class="muted small">{account.users.map((u) => u.email).join(", ")}</div>
                  <CopyId label="account id" value={account.id} />
                </div>
                <div class="badges">
                  <Badge tone={account.status === "lapsed" ? "bad" : "good"}>
                    {account.status}
                  </Badge>
                  <Badge
                    tone={
                      ["active", "trialing"].includes(account.subscriptionStatus) ? "good" : "warn"
                    }
                  >
                    subscription {account.subscriptionStatus.replace("_", " ")}
                  </Badge>
                  {account.paymentFailed && <Badge tone="bad">payment failed</Badge>}
                  {account.disabled && <Badge tone="bad">disabled</Badge>}
                  {account.demo && <Badge tone="warn">demo</Badge>}
                  {!account.connectEnabled && <Badge tone="warn">connect off</Badge>}
                  {account.users.some((u) => u.isOperator) && (
                    <Badge tone="neutral">operators</Badge>
                  )}
                </div>
              </div>
              <p class="muted small">
                Created <Time iso={account.createdAt} />
              </p>
              <div class="actions">
                <button
                  type="button"
                  class="button button-secondary"
                  aria-expanded={open === account.id}
                  onClick={() => setOpen(open === account.id ? undefined : account.id)}
                >
                  {open === account.id ? "Close" : "Change status and flags"}
                </button>
                <button
                  type="button"
                  class="button button-secondary"
                  aria-expanded={showing.has(account.id)}
                  aria-controls={`account-connections-${account.id}`}
                  onClick={() => toggleConnections(account.id)}
                >
                  {showing.has(account.id) ? "Hide connections" : "Connections"}
                </button>
              </div>
              {open === account.id && <AccountEditor account={account} onSaved={accounts.reload} />}
              <div id={`account-connections-${account.id}`}>
                {showing.has(account.id) && (
                  <AccountConnections accountId={account.id} accountName={account.name} />
                )}
              </div>
            </li>
          ))}
        </ul>
      </ListState>
    </section>
  );
}
