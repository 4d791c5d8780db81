// The quick start: shown to an account owner from the first sign-in until they
// dismiss it. The dismissal is kept per user on the server (POST /me/quick-start/dismiss), so
// it holds on every device and no browser storage is used.
import { api } from "../api.ts";
import { useAction } from "../use-action.ts";
import { CopyButton } from "./copy.tsx";
import { Feedback } from "./feedback.tsx";

export function QuickStart(props: {
  apiBaseUrl: string;
  isOperator?: boolean;
  onDismissed: () => void;
}) {
  const dismiss = useAction();
  const curl = `curl -H "Authorization: Bearer $SVC_API_KEY" ${props.apiBaseUrl}/accounts`;
  return (
    <section
      class="card quick-start"
      aria-labelledby="quick-start-heading"
      data-testid="quick-start"
    >
      <h2 id="quick-start-heading">Quick start</h2>
      {props.isOperator && (
        <p data-testid="quick-start-operator">
          You run this instance, and this account is your own: try the API here first. For your
          customers, <a href="#/operator/new-account">create an account</a> (its user gets a
          one-time password), or <a href="#/operator/import">import bank data</a> for one; the{" "}
          <a href="#/operator/settings">settings</a> page shows the instance configuration.
        </p>
      )}
      <ol class="quick-start-steps">
        <li>
          <a href="#/connections">Connect the sandbox bank</a> first: a simulated customer whose
          accounts, balances and transactions your calls read and whose changes raise the events.
        </li>
        <li>
          <a href="#/keys">Create an API key</a> and keep it somewhere safe; it is shown once.
        </li>
        <li>
          Try one call (put your key in <code>SVC_API_KEY</code> first):
          <pre data-testid="quick-start-curl">
            <code>{curl}</code>
          </pre>
          <CopyButton value={curl} label="curl command" />
        </li>
        <li>
          <a href="#/webhooks">Register a webhook endpoint</a> (HTTPS on port 443) to hear about
          changes.
        </li>
        <li>Verify it: send a code from the endpoint's page and enter what your receiver got.</li>
        <li>
          Make an event happen: <em>Simulate activity</em> on your sandbox connection (new
          transactions, a booking, a balance or status change), then watch it in the delivery log.
        </li>
      </ol>
      <p>
        Receiving on your own machine while developing? Run the server with <code>svc dev</code> (it
        accepts a localhost endpoint and issues a certificate for it), or forward your events to a
        local URL with <code>svc listen</code>.
      </p>
      <p>
        Read the <a href="/v1/docs">API reference</a>. The <a href="#/receiver-kit">receiver kit</a>{" "}
        (TypeScript and Python, to copy or download) verifies signatures and de-duplicates events
        for you; the reference's webhook section describes the same rules.
      </p>
      <Feedback action={dismiss} />
      <button
        type="button"
        class="button button-secondary"
        disabled={dismiss.busy}
        onClick={() =>
          dismiss.run(async () => {
            await api("POST", "/me/quick-start/dismiss");
            props.onDismissed();
          })
        }
      >
        Dismiss the quick start
      </button>
    </section>
  );
}
