import { useCallback, useState } from "preact/hooks";
import { api } from "../api.ts";
import { DeliveryLog } from "../components/delivery-log.tsx";
import { EndpointBadges, failureText } from "../components/endpoint-badges.tsx";
import { SendResult } from "../components/send-result.tsx";
import {
  ActionButton,
  ConfirmButton,
  ErrorNotice,
  formatRemaining,
  formatTime,
  Loading,
  Notice,
  SecretOnce,
  TextField,
  useNow,
  usePolling,
} from "../components/ui.tsx";
import { navigate } from "../router.ts";
import type {
  EndpointDetail,
  EndpointView,
  EndpointWithSecret,
  OneOffSendView,
  PendingVerification,
} from "../types.ts";
import { useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";

type Runner = (work: () => Promise<unknown>) => Promise<void>;

function Countdown(props: { verification: PendingVerification }) {
  const now = useNow(1000);
  const leftMs = new Date(props.verification.expiresAt).getTime() - now;
  if (leftMs <= 0) return <span>The code has expired.</span>;
  return (
    <span data-testid="code-expiry">
      Expires in <strong>{formatRemaining(leftMs)}</strong> (at{" "}
      {formatTime(props.verification.expiresAt)})
    </span>
  );
}

function VerifySection(props: {
  endpoint: EndpointView;
  verification: PendingVerification | null;
  run: Runner;
  onChanged: () => Promise<void>;
  onVerified: () => void;
}) {
  const [code, setCode] = useState("");
  const [sent, setSent] = useState<OneOffSendView | undefined>(undefined);
  const [codeError, setCodeError] = useState<string | undefined>(undefined);
  const { verification } = props;
  const usable = verification?.usable === true;
  return (
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify this endpoint</h2>
      <p>
        Until it is verified the endpoint gets only test and verification events. Svc sends an
        8-character code in a <code>webhook.verify</code> event; read it from your receiver and
        enter it here. A code lasts 1 hour and allows 5 attempts.
      </p>
      <ActionButton
        kind={usable ? "secondary" : "primary"}
        busyLabel="Sending…"
        onClick={() =>
          props.run(async () => {
            setSent(undefined);
            const answer = await api<{ send: OneOffSendView }>(
              "POST",
              `/endpoints/${props.endpoint.id}/send-code`,
            );
            setSent(answer.send);
            setCodeError(undefined);
          })
        }
      >
        {verification ? "Send a new code" : "Send verification code"}
      </ActionButton>
      {sent && <SendResult result={sent} />}
      {verification && (
        <p class="small" data-testid="verification-state">
          {usable ? (
            <>
              {verification.attemptsLeft} attempt{verification.attemptsLeft === 1 ? "" : "s"} left.{" "}
              <Countdown verification={verification} />
            </>
          ) : (
            "The last code has expired or is used up: send a new code."
          )}
        </p>
      )}
      {usable && (
        <form
          class="verify-form"
          onSubmit={async (event) => {
            event.preventDefault();
            setCodeError(undefined);
            try {
              await api("POST", `/endpoints/${props.endpoint.id}/verify`, { code });
              setCode("");
              props.onVerified();
            } catch (failure) {
              setCodeError(failure instanceof Error ? failure.message : String(failure));
            }
            await props.onChanged();
          }}
        >
          <TextField
            label="Verification code"
            error={codeError}
            value={code}
            onValue={(v) => setCode(v.toUpperCase())}
            input={{
              name: "verification-code",
              class: "code-input",
              autoComplete: "one-time-code",
              autoCapitalize: "characters",
              spellcheck: false,
              maxLength: 8,
              required: true,
            }}
          />
          <button type="submit" class="button button-primary">
            Verify
          </button>
        </form>
      )}
    </section>
  );
}

function StateActions(props: { endpoint: EndpointView; run: Runner }) {
  const { endpoint, run } = props;
  const change = (action: string) =>
    run(async () => {
      await api("POST", `/endpoints/${endpoint.id}/${action}`);
    });
  return (
    <div class="actions">
      {endpoint.status === "disabled" && (
        <ActionButton kind="primary" busyLabel="Enabling…" onClick={() => change("enable")}>
          Enable
        </ActionButton>
      )}
      {endpoint.status === "active" && (
        <ActionButton busyLabel="Pausing…" onClick={() => change("pause")}>
          Pause
        </ActionButton>
      )}
      {endpoint.status === "paused" && (
        <ActionButton kind="primary" busyLabel="Resuming…" onClick={() => change("resume")}>
          Resume
        </ActionButton>
      )}
      <ConfirmButton
        label="Remove"
        question="Remove this endpoint and its delivery log?"
        confirmLabel="Remove endpoint"
        onConfirm={() =>
          run(async () => {
            await api("DELETE", `/endpoints/${endpoint.id}`);
            navigate("/webhooks");
          })
        }
      />
    </div>
  );
}

function Details(props: { endpoint: EndpointView }) {
  const { endpoint } = props;
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd>
        <code data-testid="endpoint-url">{endpoint.url}</code>
      </dd>
      <dt>State</dt>
      <dd>
        <EndpointBadges endpoint={endpoint} />
      </dd>
      <dt>Verified</dt>
      <dd>{endpoint.verifiedAt ? formatTime(endpoint.verifiedAt) : "Not yet"}</dd>
      <dt>Failures</dt>
      <dd data-testid="failure-count">{failureText(endpoint)}</dd>
      {endpoint.disabledAt && (
        <>
          <dt>Disabled</dt>
          <dd data-testid="disabled-reason">
            {formatTime(endpoint.disabledAt)}: {endpoint.disabledReason}
          </dd>
        </>
      )}
      <dt>Added</dt>
      <dd>{formatTime(endpoint.createdAt)}</dd>
    </dl>
  );
}

export function EndpointDetailPage(props: { endpointId: string }) {
  const detail = useResource<EndpointDetail>(`/endpoints/${props.endpointId}`);
  const [testResult, setTestResult] = useState<OneOffSendView | undefined>(undefined);
  const [rotated, setRotated] = useState<string | undefined>(undefined);
  const [verifiedNow, setVerifiedNow] = useState(false);
  // One clock for the endpoint and its delivery log, so they never disagree on screen.
  const [logVersion, setLogVersion] = useState(0);
  const refresh = useCallback(async () => {
    setLogVersion((v) => v + 1);
    await detail.reload();
  }, [detail.reload]);
  usePolling(refresh, 5000);

  // Every action shows its failure (429 included) as the server words it, then the page
  // shows the state the action left behind.
  const action = useAction();
  const run: Runner = async (work) => {
    await action.run(async () => {
      await work();
    });
    await refresh();
  };

  const d = detail.data;
  if (!d) {
    return (
      <section>
        <p>
          <a href="#/webhooks">← All endpoints</a>
        </p>
        <ErrorNotice error={detail.error} />
        {!detail.error && <Loading />}
      </section>
    );
  }
  const { endpoint } = d;
  return (
    <section>
      <p>
        <a href="#/webhooks">← All endpoints</a>
      </p>
      <h1>{endpoint.description || "Webhook endpoint"}</h1>
      <ErrorNotice error={action.error} />
      {verifiedNow && endpoint.verified && (
        <Notice kind="success">Verified: account events now flow to this endpoint.</Notice>
      )}
      {endpoint.status === "disabled" && (
        <Notice kind="error">
          This endpoint is disabled: nothing is sent to it. Fix the receiver, then press Enable;
          events raised meanwhile are not replayed.
        </Notice>
      )}
      {endpoint.status === "paused" && (
        <Notice kind="info">
          Paused: nothing is sent, and events raised while paused are never delivered later.
        </Notice>
      )}
      <Details endpoint={endpoint} />
      <StateActions endpoint={endpoint} run={run} />

      {!endpoint.verified && (
        <VerifySection
          endpoint={endpoint}
          verification={d.verification}
          run={run}
          onChanged={refresh}
          onVerified={() => setVerifiedNow(true)}
        />
      )}

      <section class="card" aria-labelledby="test-heading">
        <h2 id="test-heading">Test</h2>
        <p>
          Sends one <code>webhook.test</code> event now (also to an unverified endpoint) and shows
          what your receiver answered.
        </p>
        <ActionButton
          busyLabel="Sending…"
          onClick={() =>
            run(async () => {
              setTestResult(undefined);
              setTestResult(await api<OneOffSendView>("POST", `/endpoints/${endpoint.id}/test`));
            })
          }
        >
          Send test event
        </ActionButton>
        {testResult && <SendResult result={testResult} />}
      </section>

      <section class="card" aria-labelledby="secret-heading">
        <h2 id="secret-heading">Signing secret</h2>
        {rotated ? (
          <SecretOnce label="signing secret" value={rotated} onDone={() => setRotated(undefined)} />
        ) : (
          <>
            <p>
              The secret was shown once, when it was issued. If it leaked or got lost, issue a new
              one: the current secret stops verifying at that instant, retries included.
            </p>
            <ConfirmButton
              kind="secondary"
              label="Rotate secret"
              question="Issue a new secret now? The current one stops working at once."
              confirmLabel="Yes, issue a new secret"
              onConfirm={() =>
                run(async () => {
                  const answer = await api<EndpointWithSecret>(
                    "POST",
                    `/endpoints/${endpoint.id}/rotate-secret`,
                  );
                  setRotated(answer.signingSecret);
                })
              }
            />
          </>
        )}
      </section>

      <DeliveryLog endpointId={endpoint.id} version={logVersion} />
    </section>
  );
}
