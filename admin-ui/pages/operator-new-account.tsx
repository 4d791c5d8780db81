// Operators: create a service account and its first user. The password is generated
// by the server and shown once here; the user must replace it at first sign-in.
import { useState } from "preact/hooks";
import { ApiFailure, api } from "../api.ts";
import { CopyId } from "../components/copy.tsx";
import { Feedback } from "../components/feedback.tsx";
import { SecretOnce, SubmitButton, TextField } from "../components/ui.tsx";
import { useAction } from "../use-action.ts";

interface Created {
  account: { id: string; name: string; users: { email: string }[] };
  oneTimePassword: string;
}

const statuses = ["sandbox", "active", "lapsed"] as const;
const subscriptions = ["none", "active", "trialing", "past_due", "canceled"] as const;

export function OperatorNewAccountPage() {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [status, setStatus] = useState<(typeof statuses)[number]>("sandbox");
  const [subscription, setSubscription] = useState<(typeof subscriptions)[number]>("none");
  const [isOperator, setIsOperator] = useState(false);
  // A problem with the e-mail (its shape, or a user who already has it) is shown at the field.
  const [emailError, setEmailError] = useState<string | undefined>(undefined);
  const [nameError, setNameError] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<Created | undefined>(undefined);
  const action = useAction();
  return (
    <section>
      <h1>Create an account</h1>
      <p class="muted">
        A service account with its first user. Svc makes a one-time password, shown here once; give
        it to the user, who must choose their own at first sign-in.
      </p>
      {created ? (
        <>
          <SecretOnce
            label="one-time password"
            value={created.oneTimePassword}
            onDone={() => setCreated(undefined)}
          >
            <p>
              For <strong>{created.account.users[0]?.email}</strong> in account{" "}
              <strong>{created.account.name}</strong>.
            </p>
            <p>
              <CopyId label="account id" value={created.account.id} />
            </p>
          </SecretOnce>
          <p>
            <a href="#/operator/accounts">All accounts</a>
          </p>
        </>
      ) : (
        <form
          class="card"
          aria-labelledby="new-account-heading"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            setEmailError(undefined);
            setNameError(undefined);
            void action.run(async () => {
              let answer: Created;
              try {
                answer = await api<Created>("POST", "/operator/accounts", {
                  email: email.trim(),
                  ...(name.trim() ? { name: name.trim() } : {}),
                  status,
                  subscriptionStatus: subscription,
                  isOperator,
                });
              } catch (failure) {
                const message = failure instanceof ApiFailure ? failure.message : "";
                if (/^email\b/.test(message) || /\be-mail\b/.test(message)) setEmailError(message);
                else if (/^name\b/.test(message)) setNameError(message);
                else throw failure;
                return;
              }
              setEmail("");
              setName("");
              setCreated(answer);
            });
          }}
        >
          <h2 id="new-account-heading">Account and first user</h2>
          <TextField
            label="E-mail of the first user"
            error={emailError}
            value={email}
            onValue={setEmail}
            input={{ name: "email", type: "email", autoComplete: "off", required: true }}
          />
          <TextField
            label="Account name (optional)"
            hint="Defaults to the e-mail address."
            error={nameError}
            value={name}
            onValue={setName}
            input={{ name: "account-name", autoComplete: "off" }}
          />
          <div class="inline-fields">
            <label>
              Status
              <select
                name="status"
                value={status}
                onChange={(e) => setStatus(e.currentTarget.value as typeof status)}
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
                value={subscription}
                onChange={(e) => setSubscription(e.currentTarget.value as typeof subscription)}
              >
                {subscriptions.map((s) => (
                  <option value={s}>{s.replace("_", " ")}</option>
                ))}
              </select>
            </label>
          </div>
          <fieldset class="checkboxes">
            <legend>Role</legend>
            <label>
              <input
                type="checkbox"
                name="is-operator"
                checked={isOperator}
                onChange={(e) => setIsOperator(e.currentTarget.checked)}
              />
              Operator (sees every account's metadata)
            </label>
          </fieldset>
          <SubmitButton busy={action.busy} busyLabel="Creating…">
            Create account
          </SubmitButton>
          <Feedback action={action} />
        </form>
      )}
    </section>
  );
}
