import { useLayoutEffect, useRef } from "preact/hooks";
import { CopyId } from "../components/copy.tsx";
import { QuickStart } from "../components/quick-start.tsx";
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

/** Where to update payment details: the billing page, or the operators to write to. */
function BillingLink(props: { billing: Overview["billing"] }) {
  const { billing } = props;
  if (billing.url)
    return (
      <p data-testid="billing-link">
        <a href={billing.url} rel="noopener noreferrer" target="_blank">
          Update your payment details
        </a>{" "}
        (opens the billing page in a new tab).
      </p>
    );
  if (billing.operatorEmails.length > 0)
    return (
      <p data-testid="billing-link">
        To update your payment details, write to the operator of this service:{" "}
        {billing.operatorEmails.map((email, i) => (
          <>
            {i > 0 && ", "}
            <a href={`mailto:${email}?subject=${encodeURIComponent("Payment details")}`}>{email}</a>
          </>
        ))}
        .
      </p>
    );
  return (
    <p data-testid="billing-link">
      To update your payment details, contact the operator of this service.
    </p>
  );
}

function AccessCard(props: { overview: Overview }) {
  const { access, account } = props.overview;
  // Spec 7: a lapsed subscription or failed renewal asks for updated payment details.
  const payment = account.paymentFailed || access.code === "subscription_lapsed";
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
      {payment && <BillingLink billing={props.overview.billing} />}
    </section>
  );
}

function endpointItemText(setup: Overview["setup"]): string {
  if (setup.endpoints === 0) return "Add a webhook endpoint to hear about changes";
  const plural = setup.endpoints === 1 ? "" : "s";
  if (setup.disabledEndpoints > 0)
    return `${setup.disabledEndpoints} of ${setup.endpoints} webhook endpoint${plural} disabled: nothing is sent to ${setup.disabledEndpoints === 1 ? "it" : "them"} until enabled`;
  return `${setup.verifiedEndpoints} of ${setup.endpoints} webhook endpoint${plural} verified`;
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
      // Ticked only while events reach every endpoint: verified, and none disabled.
      done: setup.receivingEndpoints > 0 && setup.disabledEndpoints === 0,
      href: "#/webhooks",
      text: endpointItemText(setup),
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
          <li class={item.done ? "done" : ""} data-testid="checklist-item" data-done={item.done}>
            <span aria-hidden="true">{item.done ? "✓" : "○"}</span>{" "}
            <a href={item.href}>{item.text}</a>
            <span class="visually-hidden">{item.done ? " (done)" : " (to do)"}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function OverviewPage(props: {
  quickStart: boolean;
  isOperator: boolean;
  onQuickStartDismissed: () => void;
}) {
  const overview = useResource<Overview>("/overview");
  const o = overview.data;
  const heading = useRef<HTMLHeadingElement>(null);
  const wasShown = useRef(props.quickStart);
  // After dismissing, the quick start is gone: focus goes to the page's heading, not <body>.
  useLayoutEffect(() => {
    if (wasShown.current && !props.quickStart) heading.current?.focus();
    wasShown.current = props.quickStart;
  }, [props.quickStart]);
  return (
    <section>
      <h1 ref={heading} tabIndex={-1}>
        Overview
      </h1>
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
          {props.quickStart && (
            <QuickStart
              apiBaseUrl={o.apiBaseUrl}
              isOperator={props.isOperator}
              onDismissed={props.onQuickStartDismissed}
            />
          )}
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
            <dt>Account id</dt>
            <dd>
              <CopyId label="account id" value={o.account.id} labelShown={false} />
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
