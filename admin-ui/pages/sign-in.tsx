import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice, Field } from "../components/ui.tsx";

export function SignInPage(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <main class="narrow">
      <h1>Sign in to Svc</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await api("POST", "/session", { email, password });
            setPassword("");
            props.onSignedIn();
          } catch (failure) {
            setError(failure);
          } finally {
            setBusy(false);
          }
        }}
      >
        <ErrorNotice error={error} />
        <Field label="E-mail">
          {(input) => (
            <input
              {...input}
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(input) => (
            <input
              {...input}
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
