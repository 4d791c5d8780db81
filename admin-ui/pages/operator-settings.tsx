import { ErrorNotice, Loading } from "../components/ui.tsx";
import { useResource } from "../use-resource.ts";

interface Settings {
  baseUrl: string;
  deliverySourceIp: string | null;
  smtpConfigured: boolean;
  mailFrom: string;
  billingUrl: string | null;
  syncSchedule: string;
  retentionDays: number;
  apiRateLimitPerMinute: number;
  tls: boolean;
  unsafeAllowPrivateTargets: boolean;
}

export function OperatorSettingsPage() {
  const settings = useResource<Settings>("/operator/settings");
  const s = settings.data;
  return (
    <section>
      <h1>Instance settings</h1>
      <p class="muted">
        As configured (svc.json, SVC_* environment, flags). Change them there and restart; see{" "}
        <code>svc serve --help</code>.
      </p>
      <ErrorNotice error={settings.error} />
      {!s ? (
        <Loading />
      ) : (
        <dl class="facts">
          <dt>Base URL</dt>
          <dd>
            <code>{s.baseUrl}</code>
          </dd>
          <dt>Delivery source IP</dt>
          <dd>{s.deliverySourceIp ? <code>{s.deliverySourceIp}</code> : "Not set"}</dd>
          <dt>TLS served by the binary</dt>
          <dd>{s.tls ? "Yes" : "No (plain HTTP, or TLS at a reverse proxy)"}</dd>
          <dt>Mail</dt>
          <dd>
            {s.smtpConfigured ? `SMTP, from ${s.mailFrom}` : "No SMTP: mail stays in the outbox"}
          </dd>
          <dt>Billing page</dt>
          <dd data-testid="billing-url">
            {s.billingUrl ? (
              <code>{s.billingUrl}</code>
            ) : (
              <>
                Not set: owners whose payment failed are told to write to the operators. Set{" "}
                <code>billingUrl</code> (<code>SVC_BILLING_URL</code>) to link them to it.
              </>
            )}
          </dd>
          <dt>Sync schedule</dt>
          <dd>
            <code>{s.syncSchedule}</code>
          </dd>
          <dt>Event and delivery retention</dt>
          <dd>{s.retentionDays} days</dd>
          <dt>Read API rate limit</dt>
          <dd>
            {s.apiRateLimitPerMinute === 0
              ? "Off"
              : `${s.apiRateLimitPerMinute} requests per minute per account (all its keys)`}
          </dd>
          {s.unsafeAllowPrivateTargets && (
            <>
              <dt>Private delivery targets</dt>
              <dd class="danger-text">Allowed (development only: never in production)</dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
