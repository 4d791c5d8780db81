import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNotice, SubmitButton, TextField } from "../components/ui.tsx";
import { useAction } from "../use-action.ts";

export function SignInPage(props: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  return (
    <main class="narrow">
      <h1>Sign in to Svc</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            await api("POST", "/session", { email, password });
            setPassword("");
            props.onSignedIn();
          });
        }}
      >
        <ErrorNotice error={action.error} />
        <TextField
          label="E-mail"
          value={email}
          onValue={setEmail}
          input={{ type: "email", name: "email", autoComplete: "username", required: true }}
        />
        <TextField
          label="Password"
          value={password}
          onValue={setPassword}
          input={{
            type: "password",
            name: "password",
            autoComplete: "current-password",
            required: true,
          }}
        />
        <SubmitButton busy={action.busy} busyLabel="Signing in…">
          Sign in
        </SubmitButton>
      </form>
    </main>
  );
}
