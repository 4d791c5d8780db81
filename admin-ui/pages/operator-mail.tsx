import { useState } from "preact/hooks";
import { ListState } from "../components/list-state.tsx";
import { Badge, formatTime } from "../components/ui.tsx";
import type { MailView } from "../types.ts";
import { useResource } from "../use-resource.ts";

function MailItem(props: { mail: MailView; smtpConfigured: boolean }) {
  const m = props.mail;
  return (
    <li class="card" data-testid="mail">
      <div class="card-head">
        <div>
          <strong>{m.subject}</strong>
          <div class="small muted">
            to {m.to} · {formatTime(m.createdAt)}
          </div>
        </div>
        {m.sentAt ? (
          <Badge tone="good">sent {formatTime(m.sentAt)}</Badge>
        ) : (
          <Badge tone="warn">not sent</Badge>
        )}
      </div>
      {!m.sentAt &&
        (props.smtpConfigured ? (
          <p class="small muted">
            {m.attempts} attempt{m.attempts === 1 ? "" : "s"}
            {m.lastError && `; last error: ${m.lastError}`}
            {m.nextAttemptAt ? `; next attempt ${formatTime(m.nextAttemptAt)}` : "; given up"}
          </p>
        ) : (
          <p class="small muted">Kept here only: no SMTP server is configured (smtpUrl).</p>
        ))}
      <details>
        <summary>Message</summary>
        <pre class="mail-body">{m.body}</pre>
      </details>
    </li>
  );
}

export function OperatorMailPage() {
  const [unsentOnly, setUnsentOnly] = useState(false);
  const mail = useResource<{ data: MailView[]; smtpConfigured: boolean }>(
    `/operator/mail${unsentOnly ? "?unsent=true" : ""}`,
  );
  const list = mail.data?.data ?? [];
  return (
    <section>
      <h1>Mail outbox</h1>
      <p class="muted">
        Every e-mail Svc means to send (e.g. “endpoint disabled” notices to account owners), newest
        first. Without SMTP configured it stays here.
      </p>
      <div class="search">
        <label class="checkbox">
          <input
            type="checkbox"
            checked={unsentOnly}
            onChange={(e) => setUnsentOnly(e.currentTarget.checked)}
          />
          Only mail not sent yet
        </label>
        <button type="button" class="button button-secondary" onClick={() => void mail.reload()}>
          Refresh
        </button>
      </div>
      <ListState
        resource={mail}
        count={list.length}
        empty={unsentOnly ? "Everything has been sent." : "No mail yet."}
      >
        <ul class="cards">
          {list.map((m) => (
            <MailItem key={m.id} mail={m} smtpConfigured={mail.data?.smtpConfigured ?? false} />
          ))}
        </ul>
      </ListState>
    </section>
  );
}
