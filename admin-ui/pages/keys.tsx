import { useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { Feedback } from "../components/feedback.tsx";
import { ListState } from "../components/list-state.tsx";
import { Time } from "../components/time.tsx";
import { Badge, Notice, SecretOnce, SubmitButton, TextField } from "../components/ui.tsx";
import type { ApiKeyView, CreatedApiKey } from "../types.ts";
import { useAction } from "../use-action.ts";
import { useFocusWhen } from "../use-focus.ts";
import { useResource } from "../use-resource.ts";

function CreateKeyForm(props: { onCreated: (created: CreatedApiKey) => Promise<void> }) {
  const [name, setName] = useState("");
  const action = useAction();
  return (
    <form
      class="card"
      aria-labelledby="create-key-heading"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          const created = await api<CreatedApiKey>("POST", "/keys", {
            ...(name.trim() ? { name } : {}),
          });
          setName("");
          await props.onCreated(created);
        });
      }}
    >
      <h2 id="create-key-heading">Create a key</h2>
      <Feedback action={action} />
      <TextField
        label="Name (optional)"
        hint="Tells keys apart: use one key per environment or service, e.g. “billing production”."
        value={name}
        onValue={setName}
        input={{ name: "key-name", maxLength: 100, autoComplete: "off" }}
      />
      <SubmitButton busy={action.busy} busyLabel="Creating…">
        Create key
      </SubmitButton>
    </form>
  );
}

function KeyRow(props: { apiKey: ApiKeyView; onRevoked: () => Promise<void>; focusName: boolean }) {
  const { apiKey } = props;
  const revoke = useAction();
  const name = useRef<HTMLTableCellElement>(null);
  // The new key's row takes focus once its secret was put away (never <body>).
  useFocusWhen(name, props.focusName, [props.focusName]);
  return (
    <tr data-testid="key-row" data-key-id={apiKey.id}>
      <td data-label="Name" ref={name} tabIndex={props.focusName ? -1 : undefined}>
        {apiKey.name}
      </td>
      <td data-label="Prefix">
        <code class="key-prefix" data-testid="key-prefix">
          {apiKey.prefix}…
        </code>
      </td>
      <td data-label="Created">
        <Time iso={apiKey.createdAt} />
      </td>
      <td data-label="Last used">
        <Time iso={apiKey.lastUsedAt} empty="Never" />
      </td>
      <td data-label="Status">
        {apiKey.revokedAt ? (
          <span>
            <Badge tone="bad">revoked</Badge>{" "}
            <span class="small" data-testid="revoked-at">
              <Time iso={apiKey.revokedAt} />
            </span>
          </span>
        ) : (
          <Badge tone="good">active</Badge>
        )}
      </td>
      <td data-label="Actions">
        <div>
          <Feedback action={revoke} />
          {!apiKey.revokedAt && (
            <ConfirmDialog
              label="Revoke"
              labelFull={`Revoke ${apiKey.name}`}
              title={`Revoke the key “${apiKey.name}”?`}
              confirmLabel="Revoke key"
              onConfirm={() =>
                revoke.run(async () => {
                  await api("POST", `/keys/${apiKey.id}/revoke`);
                  await props.onRevoked();
                  return `Revoked “${apiKey.name}”: requests with it now get 401 invalid_api_key.`;
                })
              }
            >
              <p>
                Requests with the key <code>{apiKey.prefix}…</code> fail at once with 401{" "}
                <code>invalid_api_key</code>. This cannot be undone: to keep calling the API, create
                a new key and switch your integration to it first.
              </p>
            </ConfirmDialog>
          )}
        </div>
      </td>
    </tr>
  );
}

export function KeysPage() {
  const keys = useResource<{ data: ApiKeyView[] }>("/keys");
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [focusKeyId, setFocusKeyId] = useState<string | undefined>(undefined);
  const list = keys.data?.data ?? [];
  return (
    <section>
      <h1>API keys</h1>
      <p class="muted">
        Send a key as <code>Authorization: Bearer svk_…</code>. To rotate, create a new key, switch
        your integration to it, then revoke the old one.
      </p>
      {created ? (
        <SecretOnce
          label="API key"
          value={created.key}
          onDone={() => {
            setFocusKeyId(created.apiKey.id);
            setCreated(undefined);
          }}
        >
          <p class="muted small">
            “{created.apiKey.name}”, prefix <code>{created.apiKey.prefix}</code>.
          </p>
        </SecretOnce>
      ) : (
        <CreateKeyForm
          onCreated={async (next) => {
            setCreated(next);
            await keys.reload();
          }}
        />
      )}
      <h2>Your keys</h2>
      <ListState
        resource={keys}
        count={list.length}
        empty="No API keys yet. Create one to call the API."
      >
        <div class="table-wrap">
          <table class="responsive-table">
            <caption class="visually-hidden">API keys, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((apiKey) => (
                <KeyRow
                  key={apiKey.id}
                  apiKey={apiKey}
                  onRevoked={keys.reload}
                  focusName={apiKey.id === focusKeyId}
                />
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
      {list.some((k) => k.revokedAt) && (
        <Notice kind="info">Revoked keys stay listed with the date they were revoked.</Notice>
      )}
    </section>
  );
}
