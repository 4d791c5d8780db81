import { useCallback, useRef, useState } from "preact/hooks";
import {
  normaliseVerificationCode,
  verificationCodeProblem,
} from "../../src/webhooks/events/verification-code.ts";
import { api } from "../api.ts";
import { announceAttentionChange } from "../components/attention-banner.tsx";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { DeliveryChart } from "../components/delivery-chart.tsx";
import { DeliveryLog } from "../components/delivery-log.tsx";
import { EndpointBadges, failureText } from "../components/endpoint-badges.tsx";
import { EventTypeFilter } from "../components/event-type-filter.tsx";
import { Feedback } from "../components/feedback.tsx";
import { RecoverSection } from "../components/recovery.tsx";
import { SendResult } from "../components/send-result.tsx";
import { Time } from "../components/time.tsx";
import {
  ActionButton,
  ErrorNotice,
  formatRemaining,
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
import { type Action, useAction } from "../use-action.ts";
import { useFocusWhen } from "../use-focus.ts";
import { useResource } from "../use-resource.ts";

/** Runs an action of this page, then shows the state it left behind (here and in the banner). */
type Runner = (action: Action, work: () => Promise<unknown>) => Promise<void>;

function Countdown(props: { verification: PendingVerification }) {
  const now = useNow(1000);
  const leftMs = new Date(props.verification.expiresAt).getTime() - now;
  if (leftMs <= 0) return <span>The code has expired.</span>;
  return (
    <span data-testid="code-expiry">
      Expires in <strong>{formatRemaining(leftMs)}</strong> (at{" "}
      <Time iso={props.verification.expiresAt} relative={false} />)
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
  const send = useAction();
  const input = useRef<HTMLDivElement>(null);
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
          props.run(send, async () => {
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
      <div aria-live="polite">{sent && <SendResult result={sent} />}</div>
      <Feedback action={send} />
      {verification && (
        <p class="small" data-testid="verification-state" aria-live="polite">
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
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            setCodeError(undefined);
            // The same normalisation as the server: a pasted "abcd efgh" is ABCDEFGH, and a
            // wrong length is refused here without spending one of the 5 attempts.
            const entered = normaliseVerificationCode(code);
            const problem = verificationCodeProblem(entered);
            const field = () => input.current?.querySelector("input")?.focus();
            if (problem) {
              setCodeError(`${problem[0]?.toUpperCase()}${problem.slice(1)}. No attempt was used.`);
              field();
              return;
            }
            try {
              await api("POST", `/endpoints/${props.endpoint.id}/verify`, { code: entered });
              setCode("");
              props.onVerified();
            } catch (failure) {
              setCodeError(failure instanceof Error ? failure.message : String(failure));
              field();
            }
            await props.onChanged();
          }}
        >
          <div ref={input}>
            <TextField
              label="Verification code"
              hint="8 letters and digits; spaces, dashes and lower case are fine."
              error={codeError}
              value={code}
              onValue={setCode}
              input={{
                name: "verification-code",
                class: "code-input",
                autoComplete: "one-time-code",
                autoCapitalize: "characters",
                spellcheck: false,
              }}
            />
          </div>
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
  const action = useAction();
  const change = (path: string, done: string) =>
    run(action, async () => {
      await api("POST", `/endpoints/${endpoint.id}/${path}`);
      return done;
    });
  return (
    <div>
      <div class="actions">
        {endpoint.status === "disabled" && (
          <ActionButton
            kind="primary"
            busyLabel="Enabling…"
            onClick={() =>
              change(
                "enable",
                "Enabled: new events are sent again; events raised while it was disabled are not replayed.",
              )
            }
          >
            Enable
          </ActionButton>
        )}
        {endpoint.status === "active" && (
          <ConfirmDialog
            label="Pause"
            kind="secondary"
            title="Pause this endpoint?"
            confirmLabel="Pause endpoint"
            onConfirm={() =>
              change("pause", "Paused: nothing is sent until you resume.").then(() => undefined)
            }
          >
            <p>
              Nothing is sent to <code>{endpoint.url}</code> while it is paused, and events raised
              while paused are <strong>never delivered</strong>, also not after you resume. Your
              receiver catches up by reading from the API.
            </p>
          </ConfirmDialog>
        )}
        {endpoint.status === "paused" && (
          <ActionButton
            kind="primary"
            busyLabel="Resuming…"
            onClick={() =>
              change(
                "resume",
                "Resumed: new events are sent again; events raised while paused are not.",
              )
            }
          >
            Resume
          </ActionButton>
        )}
        <ConfirmDialog
          label="Remove"
          title="Remove this endpoint?"
          confirmLabel="Remove endpoint"
          onConfirm={() =>
            run(action, async () => {
              await api("DELETE", `/endpoints/${endpoint.id}`);
              navigate("/webhooks");
            })
          }
        >
          <p>
            <code>{endpoint.url}</code> stops receiving events at once, pending retries are
            cancelled, and its delivery log is deleted. Its signing secret stops working. This
            cannot be undone; adding the URL again gives a new secret and needs verifying again.
          </p>
        </ConfirmDialog>
      </div>
      <Feedback action={action} testId="state-feedback" />
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
      <dd>
        <Time iso={endpoint.verifiedAt} empty="Not yet" />
      </dd>
      <dt>Failures</dt>
      <dd data-testid="failure-count">{failureText(endpoint)}</dd>
      {endpoint.disabledAt && (
        <>
          <dt>Disabled</dt>
          <dd data-testid="disabled-reason">
            <Time iso={endpoint.disabledAt} />: {endpoint.disabledReason}
          </dd>
        </>
      )}
      <dt>Added</dt>
      <dd>
        <Time iso={endpoint.createdAt} />
      </dd>
    </dl>
  );
}

export function EndpointDetailPage(props: { endpointId: string }) {
  const detail = useResource<EndpointDetail>(`/endpoints/${props.endpointId}`);
  const [testResult, setTestResult] = useState<OneOffSendView | undefined>(undefined);
  const [rotated, setRotated] = useState<string | undefined>(undefined);
  const [verifiedNow, setVerifiedNow] = useState(false);
  const test = useAction();
  const rotate = useAction();
  const verifiedNotice = useRef<HTMLDivElement>(null);
  const verified = detail.data?.endpoint.verified === true;
  // The verify form is gone once it worked: focus moves to the outcome.
  useFocusWhen(verifiedNotice, verifiedNow && verified, [verifiedNow, verified]);
  // One clock for the endpoint and its delivery log, so they never disagree on screen.
  const [logVersion, setLogVersion] = useState(0);
  const refresh = useCallback(async () => {
    setLogVersion((v) => v + 1);
    await detail.reload();
  }, [detail.reload]);
  usePolling(refresh, 5000);

  // Every action shows its outcome beside its control (429 included, with when to try again),
  // then the page and the banner show the state the action left behind.
  const run: Runner = async (action, work) => {
    await action.run(work);
    await refresh();
    announceAttentionChange();
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
      <div aria-live="polite">
        {verifiedNow && endpoint.verified && (
          <div ref={verifiedNotice} tabIndex={-1} class="notice notice-success">
            Verified: account events now flow to this endpoint.
          </div>
        )}
      </div>
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
            run(test, async () => {
              setTestResult(undefined);
              setTestResult(await api<OneOffSendView>("POST", `/endpoints/${endpoint.id}/test`));
            })
          }
        >
          Send test event
        </ActionButton>
        <div aria-live="polite">{testResult && <SendResult result={testResult} />}</div>
        <Feedback action={test} />
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
            <ConfirmDialog
              kind="secondary"
              label="Rotate secret"
              title="Issue a new signing secret now?"
              confirmLabel="Yes, issue a new secret"
              onConfirm={() =>
                run(rotate, async () => {
                  const answer = await api<EndpointWithSecret>(
                    "POST",
                    `/endpoints/${endpoint.id}/rotate-secret`,
                  );
                  setRotated(answer.signingSecret);
                })
              }
            >
              <p>
                The current secret stops verifying at once, for new events and for retries of
                earlier ones. Deliveries fail signature checks at your receiver until it uses the
                new secret, which is shown once, next.
              </p>
            </ConfirmDialog>
            <Feedback action={rotate} />
          </>
        )}
      </section>

      <EventTypeFilter endpoint={endpoint} onSaved={() => void refresh()} />

      <DeliveryChart endpointId={endpoint.id} version={logVersion} />
      <DeliveryLog endpointId={endpoint.id} version={logVersion} />
      <RecoverSection endpoint={endpoint} />
    </section>
  );
}
