// "Connect a bank": choose a configured provider; for Enable Banking pick the
// country and the bank from its list and go to the bank to approve; for SimpleFIN paste the
// setup token made at the Bridge. Also the Remove button of a real-bank connection. Kept in its
// own component so the connections page only mounts it. The providers' names come from the
// provider catalog (plain data, so no server code is bundled).
import { useState } from "preact/hooks";
import { providerCatalog, type RealProviderName } from "../../src/banking/providers/descriptors.ts";
import { api } from "../api.ts";
import type { OwnConnectionView } from "../types.ts";
import { type Action, useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { ActionButton, Badge, ErrorNotice, Field, Notice, TextField } from "./ui.tsx";

interface ProviderInfo {
  name: RealProviderName;
  configured: boolean;
  requests_per_day: number;
}

const statusTone: Record<OwnConnectionView["status"], "good" | "warn" | "bad" | "neutral"> = {
  linked: "good",
  initiated: "neutral",
  awaiting_auth: "warn",
  rejected: "bad",
  suspended: "bad",
  expired: "bad",
  error: "bad",
};

/** A connection's status as a coloured badge; owners' and operators' pages show it alike. */
export function ConnectionStatusBadge(props: { status: OwnConnectionView["status"] }) {
  return (
    <Badge tone={statusTone[props.status]}>
      <span data-testid="connection-status">{props.status.replace("_", " ")}</span>
    </Badge>
  );
}

/** A provider's name where people read it (the provider catalog's label). */
export function providerName(provider: string): string {
  return Object.hasOwn(providerCatalog, provider)
    ? providerCatalog[provider as keyof typeof providerCatalog].label
    : provider;
}

function EnableBankingForm() {
  const [country, setCountry] = useState("");
  const [banks, setBanks] = useState<{ name: string }[] | undefined>(undefined);
  const [bank, setBank] = useState("");
  const lookup = useAction();
  const start = useAction();
  return (
    <div data-testid="connect-enable-banking">
      <TextField
        label="Country of your bank"
        hint="Two letters, such as FI, DE or ES."
        value={country}
        onValue={(value) => setCountry(value.toUpperCase())}
        input={{ name: "country", autoCapitalize: "characters", maxLength: 2, required: true }}
      />
      <ErrorNotice error={lookup.error} />
      <ActionButton
        busyLabel="Loading banks…"
        disabled={!/^[A-Z]{2}$/.test(country)}
        onClick={() =>
          lookup.run(async () => {
            const answer = await api<{ data: { name: string }[] }>(
              "GET",
              `/bank-links/enable-banking/banks?country=${encodeURIComponent(country)}`,
            );
            setBanks(answer.data);
            setBank(answer.data[0]?.name ?? "");
          })
        }
      >
        Show banks
      </ActionButton>
      {banks && (
        <>
          <Field label="Your bank">
            {(ids) => (
              <select {...ids} value={bank} onChange={(e) => setBank(e.currentTarget.value)}>
                {banks.map((b) => (
                  <option value={b.name}>{b.name}</option>
                ))}
              </select>
            )}
          </Field>
          <ErrorNotice error={start.error} />
          <ActionButton
            kind="primary"
            busyLabel="Opening your bank…"
            disabled={!bank}
            onClick={() =>
              start.run(async () => {
                const answer = await api<{ redirect_url: string }>(
                  "POST",
                  "/bank-links/enable-banking",
                  { country, bank },
                );
                // The bank asks the user to approve, then sends them to /connect/callback.
                window.location.assign(answer.redirect_url);
              })
            }
          >
            Continue to your bank
          </ActionButton>
        </>
      )}
    </div>
  );
}

function SimplefinForm(props: {
  onLinked: () => Promise<void>;
  /** Renew this connection with the token instead of connecting a new one. */
  renewId?: string;
}) {
  const [token, setToken] = useState("");
  const [linked, setLinked] = useState<"linked" | "pending" | false>(false);
  const link = useAction();
  return (
    <div data-testid={props.renewId ? "renew-simplefin" : "connect-simplefin"}>
      <TextField
        label="SimpleFIN setup token"
        hint="Make one at your SimpleFIN Bridge (New app connection) and paste it here. It works once."
        value={token}
        onValue={setToken}
        input={{ name: "setup_token", autoComplete: "off", spellcheck: false, required: true }}
      />
      <ErrorNotice error={link.error} />
      {linked === "linked" && <Notice kind="success">Your bank is connected.</Notice>}
      {linked === "pending" && (
        <Notice kind="info">
          SimpleFIN accepted the token, but the first read of your accounts failed. Nothing is lost:
          the next sync brings them (or press Sync now on the connection later).
        </Notice>
      )}
      <ActionButton
        kind="primary"
        busyLabel={props.renewId ? "Renewing…" : "Connecting…"}
        disabled={!token.trim()}
        onClick={() =>
          link.run(async () => {
            setLinked(false);
            const answer = await api<{ status: string }>(
              "POST",
              props.renewId ? `/bank-links/${props.renewId}/renew` : "/bank-links/simplefin",
              { setup_token: token.trim() },
            );
            setToken("");
            setLinked(answer.status === "linked" ? "linked" : "pending");
            await props.onLinked();
          })
        }
      >
        {props.renewId ? "Renew with this token" : "Connect"}
      </ActionButton>
    </div>
  );
}

/**
 * Renew a real bank's consent: the provider's link flow again for the same connection, which
 * keeps its accounts and transactions. Enable Banking: off to the bank to approve again;
 * SimpleFIN: a new setup token.
 */
export function RenewConnection(props: {
  connection: Pick<OwnConnectionView, "id" | "provider" | "institution">;
  onRenewed: () => Promise<void>;
}) {
  const { id, provider, institution } = props.connection;
  const renew = useAction();
  const [asking, setAsking] = useState(false);
  if (provider === "simplefin") {
    return asking ? (
      <SimplefinForm renewId={id} onLinked={props.onRenewed} />
    ) : (
      <button type="button" class="button button-secondary" onClick={() => setAsking(true)}>
        Renew<span class="visually-hidden"> {institution}</span>
      </button>
    );
  }
  if (provider !== "enable_banking") return null;
  return (
    <>
      <ActionButton
        busyLabel="Opening your bank…"
        onClick={() =>
          renew.run(async () => {
            const answer = await api<{ redirect_url: string }>(
              "POST",
              `/bank-links/${id}/renew`,
              {},
            );
            window.location.assign(answer.redirect_url);
          })
        }
      >
        Renew<span class="visually-hidden"> {institution}</span>
      </ActionButton>
      <ErrorNotice error={renew.error} />
    </>
  );
}

export function ConnectBankCard(props: { onLinked: () => Promise<void> }) {
  const providers = useResource<{ data: ProviderInfo[] }>("/bank-links/providers");
  const configured = (providers.data?.data ?? []).filter((p) => p.configured);
  const [choice, setChoice] = useState<ProviderInfo["name"] | undefined>(undefined);
  const chosen = choice ?? configured[0]?.name;
  if (configured.length === 0) return null;
  return (
    <section class="card" aria-labelledby="connect-bank-heading">
      <h2 id="connect-bank-heading">Connect a bank</h2>
      <Field label="Where is your bank?">
        {(ids) => (
          <select
            {...ids}
            value={chosen}
            onChange={(e) => setChoice(e.currentTarget.value as ProviderInfo["name"])}
          >
            {configured.map((p) => (
              <option value={p.name}>{providerCatalog[p.name].connectLabel}</option>
            ))}
          </select>
        )}
      </Field>
      {chosen === "enable_banking" && <EnableBankingForm />}
      {chosen === "simplefin" && <SimplefinForm onLinked={props.onLinked} />}
    </section>
  );
}

/**
 * Remove a connection: after a confirmation that says what goes with it. A real
 * bank's session ends at the provider too (Enable Banking). The outcome is reported by the
 * page's `action`, outside the card that disappears. The owner's Connections page removes its
 * own; an operator (`account` given) removes any account's through the operator route.
 */
export function RemoveConnectionButton(props: {
  id: string;
  institution: string;
  provider: string;
  action: Action;
  onRemoved: () => Promise<void>;
  /** The service account's name, when an operator removes another account's connection. */
  account?: string;
}) {
  const { account } = props;
  const whose = account === undefined ? "" : ` of ${account}`;
  return (
    <ConfirmDialog
      label="Remove"
      labelFull={`Remove ${props.institution}${whose}`}
      title={`Remove the connection to ${props.institution}${whose}?`}
      confirmLabel="Remove connection"
      onConfirm={() =>
        props.action.run(async () => {
          await api(
            "DELETE",
            account === undefined ? `/bank-links/${props.id}` : `/operator/connections/${props.id}`,
          );
          await props.onRemoved();
          return `Removed the connection to ${props.institution}${whose} with its accounts and data.`;
        })
      }
    >
      <p>
        Its accounts, balances and transactions are deleted from Svc, the API stops serving them,
        and no more events are raised for them.
        {props.provider === "enable_banking" &&
          " The session at Enable Banking is ended, so the bank's consent is given up."}{" "}
        {account === undefined
          ? "This cannot be undone: to get the data back, connect the bank again."
          : "This cannot be undone: to get the data back, the account's owner connects the bank again (or you import it again)."}
      </p>
    </ConfirmDialog>
  );
}
