import { useState } from "preact/hooks";
import { ApiFailure, api } from "../api.ts";
import { ErrorNotice, Notice, TextField } from "../components/ui.tsx";

export function ChangePasswordPage(props: {
  forced: boolean;
  email: string;
  onChanged: () => void;
}) {
  const [currentPassword, setCurrent] = useState("");
  // Right after signing in with a one-time password it is not asked again; the server asks for
  // it once that sign-in is older than its grace period, and the field then appears.
  const [askCurrent, setAskCurrent] = useState(!props.forced);
  const [newPassword, setNew] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState(false);
  const mismatch =
    repeat.length > 0 && repeat !== newPassword ? "The two new passwords differ." : undefined;
  return (
    <section class="narrow">
      <h1>{props.forced ? "Choose your password" : "Change password"}</h1>
      {props.forced && (
        <Notice kind="info">
          You signed in with a one-time password. Choose your own before continuing.
        </Notice>
      )}
      {done && <Notice kind="success">Password changed. Other sessions were signed out.</Notice>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          if (mismatch) return;
          setError(undefined);
          try {
            await api("POST", "/me/password", {
              ...(askCurrent ? { currentPassword } : {}),
              newPassword,
            });
            setCurrent("");
            setNew("");
            setRepeat("");
            setDone(true);
            props.onChanged();
          } catch (failure) {
            if (failure instanceof ApiFailure && failure.message.startsWith("currentPassword:"))
              setAskCurrent(true);
            setError(failure);
          }
        }}
      >
        <ErrorNotice error={error} />
        {/* Lets password managers file the new password under the right account. */}
        <input
          type="text"
          name="username"
          autoComplete="username"
          value={props.email}
          hidden
          readOnly
        />
        {askCurrent && (
          <TextField
            label={props.forced ? "One-time password" : "Current password"}
            value={currentPassword}
            onValue={setCurrent}
            input={{
              type: "password",
              name: "current-password",
              autoComplete: "current-password",
              required: true,
            }}
          />
        )}
        <TextField
          label="New password"
          hint="At least 12 characters."
          value={newPassword}
          onValue={setNew}
          input={{
            type: "password",
            name: "new-password",
            autoComplete: "new-password",
            minLength: 12,
            required: true,
          }}
        />
        <TextField
          label="New password again"
          error={mismatch}
          value={repeat}
          onValue={setRepeat}
          input={{
            type: "password",
            name: "repeat-password",
            autoComplete: "new-password",
            required: true,
          }}
        />
        <button type="submit" class="button button-primary" disabled={Boolean(mismatch)}>
          Save password
        </button>
      </form>
    </section>
  );
}
