import { useRef, useState } from "preact/hooks";
import { ApiFailure, api } from "../api.ts";
import { DeliveryLog } from "../components/delivery-log.tsx";
import { EndpointBadges, failureText } from "../components/endpoint-badges.tsx";
import { Feedback } from "../components/feedback.tsx";
import { ListState } from "../components/list-state.tsx";
import { Time } from "../components/time.tsx";
import { Notice, SecretOnce, SubmitButton, TextField } from "../components/ui.tsx";
import type { EndpointList, EndpointWithSecret } from "../types.ts";
import { useAction } from "../use-action.ts";
import { useFocusWhen } from "../use-focus.ts";
import { useResource } from "../use-resource.ts";

function UrlRules() {
  return (
    <div class="hint" id="url-rules">
      <p>The URL must:</p>
      <ul class="hint-list">
        <li>
          use <code>https://</code> on the standard port 443 (no other port);
        </li>
        <li>
          point at a public host: private, loopback and link-local addresses are refused, also when
          the host name resolves to one;
        </li>
        <li>be the final address: redirects are not followed, a 3xx answer counts as a failure;</li>
        <li>carry no user name or password and no #fragment.</li>
      </ul>
      <p>Your receiver must have a valid certificate and answer with a 2xx within 10 seconds.</p>
      <p>
        Developing on your own machine? Start the server with <code>svc dev</code> (it accepts
        loopback URLs on any port and issues a local certificate for your receiver), or run{" "}
        <code>svc listen</code> to forward your events to a local URL.
      </p>
    </div>
  );
}

function AddEndpointForm(props: { onAdded: (added: EndpointWithSecret) => Promise<void> }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [urlError, setUrlError] = useState<string | undefined>(undefined);
  const [descriptionError, setDescriptionError] = useState<string | undefined>(undefined);
  const action = useAction();
  return (
    <form
      class="card"
      aria-labelledby="add-endpoint-heading"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setUrlError(undefined);
        setDescriptionError(undefined);
        void action.run(async () => {
          try {
            const added = await api<EndpointWithSecret>("POST", "/endpoints", {
              url: url.trim(),
              ...(description.trim() ? { description } : {}),
            });
            setUrl("");
            setDescription("");
            await props.onAdded(added);
          } catch (failure) {
            // URL and description problems are shown at their field; everything else (limits,
            // 429 with its message) above the form.
            const message = failure instanceof ApiFailure ? failure.message : "";
            if (failure instanceof ApiFailure && failure.code === "invalid_url")
              setUrlError(message);
            else if (message.startsWith("description")) setDescriptionError(message);
            else if (message.startsWith("url")) setUrlError(message);
            else throw failure;
          }
        });
      }}
    >
      <h2 id="add-endpoint-heading">Add an endpoint</h2>
      <TextField
        label="Endpoint URL"
        hint={<UrlRules />}
        error={urlError}
        value={url}
        onValue={setUrl}
        input={{
          type: "url",
          name: "endpoint-url",
          inputMode: "url",
          autoComplete: "off",
          spellcheck: false,
          placeholder: "https://hooks.example.com/svc",
          required: true,
        }}
      />
      <TextField
        label="Description (optional)"
        hint="What the endpoint is for; useful with more than one."
        error={descriptionError}
        value={description}
        onValue={setDescription}
        input={{ name: "endpoint-description", maxLength: 200, autoComplete: "off" }}
      />
      <SubmitButton busy={action.busy} busyLabel="Adding…">
        Add endpoint
      </SubmitButton>
      {/* Limits (429 with when to try again) and other refusals, beside the button. */}
      <Feedback action={action} />
    </form>
  );
}

export function WebhooksPage() {
  const endpoints = useResource<EndpointList>("/endpoints");
  const [added, setAdded] = useState<EndpointWithSecret | undefined>(undefined);
  const [toVerify, setToVerify] = useState<EndpointWithSecret["endpoint"] | undefined>(undefined);
  const list = endpoints.data?.data ?? [];
  const next = useRef<HTMLDivElement>(null);
  // Once the secret is put away, focus goes to the next step's link.
  useFocusWhen(next, toVerify !== undefined && !added, [toVerify, added]);
  const max = endpoints.data?.limits.maxEndpoints ?? 3;
  return (
    <section>
      <h1>Webhook endpoints</h1>
      <p class="muted">
        Svc signs every event it sends with the endpoint's secret (
        <code>Svc-Webhook-Signature</code>). An endpoint receives account events once it is verified
        and active. {endpoints.data && `${list.length} of ${max} endpoints in use.`}
      </p>
      <p>
        The <a href="#/receiver-kit">receiver kit</a> checks signatures and de-duplicates events for
        your receiver (TypeScript and Python).
      </p>
      {added && (
        <SecretOnce
          label="signing secret"
          value={added.signingSecret}
          onDone={() => {
            setToVerify(added.endpoint);
            setAdded(undefined);
          }}
        >
          <p class="muted">Your receiver checks each event's signature with it.</p>
        </SecretOnce>
      )}
      {toVerify && !added && (
        <div ref={next} tabIndex={-1} class="notice notice-success" role="status">
          Added. Next: <a href={`#/webhooks/${toVerify.id}`}>verify {toVerify.url}</a> so it
          receives account events.
        </div>
      )}
      {!added && endpoints.data && list.length < max && (
        <AddEndpointForm
          onAdded={async (next) => {
            setToVerify(undefined);
            setAdded(next);
            await endpoints.reload();
          }}
        />
      )}
      {!added && endpoints.data && list.length >= max && (
        <Notice kind="info">
          This account has {max} endpoints, the most allowed. Remove one to add another.
        </Notice>
      )}
      <h2>Endpoints</h2>
      <ListState resource={endpoints} count={list.length} empty="No webhook endpoints yet.">
        <ul class="cards">
          {list.map((endpoint) => (
            <li class="card" data-testid="endpoint-card" data-endpoint-id={endpoint.id}>
              <div class="card-head">
                <div class="grow">
                  <a href={`#/webhooks/${endpoint.id}`} class="strong">
                    {endpoint.description || "Endpoint"}
                  </a>
                  <div class="mono small">{endpoint.url}</div>
                </div>
                <EndpointBadges endpoint={endpoint} />
              </div>
              <p class="small muted">
                {failureText(endpoint)}
                {endpoint.disabledAt && (
                  <>
                    {" "}
                    · disabled <Time iso={endpoint.disabledAt} />: {endpoint.disabledReason}
                  </>
                )}
              </p>
              <a class="button button-secondary" href={`#/webhooks/${endpoint.id}`}>
                Manage
                <span class="visually-hidden"> {endpoint.url}</span>
              </a>
            </li>
          ))}
        </ul>
      </ListState>
      {list.length > 0 && (
        <DeliveryLog endpoints={list} version={0} heading="Deliveries to all endpoints" />
      )}
    </section>
  );
}
