import { Badge, CopyValue, ErrorNotice, Loading, Notice } from "../components/ui.tsx";
import type { Overview } from "../types.ts";
import { useResource } from "../use-resource.ts";

const subscriptionWords: Record<string, string> = {
  active: "active",
  trialing: "in its trial",
  past_due: "past due",
  canceled: "cancelled",
  none: "none",
};

function AccessCard(props: { overview: Overview }) {
  const { access } = props.overview;
  return (
    <section class="card access-card" aria-labelledby="access-heading" data-testid="api-access">
      <div class="card-head">
        <h2 id="access-heading">API access now</h2>
        {access.allowed ? (
          <Badge tone="good">served</Badge>
        ) : (
          <Badge tone="bad">
            refused: {access.httpStatus} {access.code}
          </Badge>
        )}
      </div>
      <p>
        <strong>{access.summary}</strong>
      </p>
      <p>{access.reason}</p>
    </section>
  );
}

function Checklist(props: { setup: Overview["setup"] }) {
  const { setup } = props;
  const items = [
    {
      done: setup.activeKeys > 0,
      href: "#/keys",
      text:
        setup.activeKeys > 0
          ? `${setup.activeKeys} active API key${setup.activeKeys === 1 ? "" : "s"}`
          : "Create an API key to call the API",
    },
    {
      done: setup.verifiedEndpoints > 0,
      href: "#/webhooks",
      text:
        setup.endpoints === 0
          ? "Add a webhook endpoint to hear about changes"
          : `${setup.verifiedEndpoints} of ${setup.endpoints} webhook endpoint${setup.endpoints === 1 ? "" : "s"} verified`,
    },
    {
      done: setup.connections > 0,
      href: "#/connections",
      text:
        setup.connections > 0
          ? `${setup.connections} bank connection${setup.connections === 1 ? "" : "s"}`
          : "Connect the sandbox bank to get data",
    },
  ];
  return (
    <section aria-labelledby="setup-heading">
      <h2 id="setup-heading">Set-up</h2>
      <ul class="checklist">
        {items.map((item) => (
          <li class={item.done ? "done" : ""}>
            <span aria-hidden="true">{item.done ? "✓" : "○"}</span>{" "}
            <a href={item.href}>{item.text}</a>
            <span class="visually-hidden">{item.done ? " (done)" : " (to do)"}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function OverviewPage() {
  const overview = useResource<Overview>("/overview");
  const o = overview.data;
  return (
    <section>
      <h1>Overview</h1>
      <ErrorNotice error={overview.error} />
      {!o ? (
        overview.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <p class="muted">
            Account <strong>{o.account.name}</strong>
          </p>
          <AccessCard overview={o} />
          <h2>Account</h2>
          <dl class="facts">
            <dt>Account status</dt>
            <dd data-testid="account-status">{o.account.status}</dd>
            <dt>Subscription</dt>
            <dd data-testid="subscription-status">
              {subscriptionWords[o.account.subscriptionStatus] ?? o.account.subscriptionStatus}
              {o.account.paymentFailed && " (the last renewal payment failed)"}
            </dd>
            <dt>API base URL</dt>
            <dd>
              <CopyValue value={o.apiBaseUrl} label="API base URL" />
            </dd>
            <dt>Portal and base URL</dt>
            <dd>
              <code>{o.baseUrl}</code>
            </dd>
            <dt>Webhooks come from</dt>
            <dd>
              {o.deliverySourceIp ? (
                <>
                  <CopyValue value={o.deliverySourceIp} label="delivery source IP" />
                  <p class="hint">
                    Allow-list this address if your receiver sits behind a firewall.
                  </p>
                </>
              ) : (
                "No fixed source address is configured for this instance; ask its operator."
              )}
            </dd>
          </dl>
          {o.account.disabled && (
            <Notice kind="error">This account is disabled. Contact the operator.</Notice>
          )}
          <Checklist setup={o.setup} />
        </>
      )}
    </section>
  );
}
