import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice, Field, Notice } from "../components/ui.tsx";

export function ChangePasswordPage(props: {
  forced: boolean;
  email: string;
  onChanged: () => void;
}) {
  const [currentPassword, setCurrent] = useState("");
  const [newPassword, setNew] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState(false);
  const mismatch =
    repeat.length > 0 && repeat !== newPassword ? "The two new passwords differ." : undefined;
  return (
    <main class="narrow">
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
            await api("POST", "/me/password", { currentPassword, newPassword });
            setCurrent("");
            setNew("");
            setRepeat("");
            setDone(true);
            props.onChanged();
          } catch (failure) {
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
        <Field label={props.forced ? "One-time password" : "Current password"}>
          {(input) => (
            <input
              {...input}
              type="password"
              name="current-password"
              autoComplete="current-password"
              required
              value={currentPassword}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="New password" hint="At least 12 characters.">
          {(input) => (
            <input
              {...input}
              type="password"
              name="new-password"
              autoComplete="new-password"
              minLength={12}
              required
              value={newPassword}
              onInput={(e) => setNew(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="New password again" error={mismatch}>
          {(input) => (
            <input
              {...input}
              type="password"
              name="repeat-password"
              autoComplete="new-password"
              required
              value={repeat}
              onInput={(e) => setRepeat(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="button button-primary" disabled={Boolean(mismatch)}>
          Save password
        </button>
      </form>
    </main>
  );
}
