import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ListState } from "../components/list-state.tsx";
import {
  Badge,
  ConfirmButton,
  ErrorNotice,
  formatTime,
  Notice,
  SecretOnce,
  SubmitButton,
  TextField,
} from "../components/ui.tsx";
import type { ApiKeyView, CreatedApiKey } from "../types.ts";
import { useAction } from "../use-action.ts";
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
      <ErrorNotice error={action.error} />
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

function KeyRow(props: { apiKey: ApiKeyView; onRevoked: () => Promise<void> }) {
  const { apiKey } = props;
  const revoke = useAction();
  return (
    <tr data-testid="key-row" data-key-id={apiKey.id}>
      <td data-label="Name">{apiKey.name}</td>
      <td data-label="Prefix">
        <code>{apiKey.prefix}…</code>
      </td>
      <td data-label="Created">{formatTime(apiKey.createdAt)}</td>
      <td data-label="Last used">{apiKey.lastUsedAt ? formatTime(apiKey.lastUsedAt) : "Never"}</td>
      <td data-label="Status">
        {apiKey.revokedAt ? (
          <span>
            <Badge tone="bad">revoked</Badge>{" "}
            <span class="small" data-testid="revoked-at">
              {formatTime(apiKey.revokedAt)}
            </span>
          </span>
        ) : (
          <Badge tone="good">active</Badge>
        )}
      </td>
      <td data-label="Actions">
        {(!apiKey.revokedAt || revoke.error !== undefined) && (
          <div>
            <ErrorNotice error={revoke.error} />
            {!apiKey.revokedAt && (
              <ConfirmButton
                label="Revoke"
                question={`Revoke “${apiKey.name}”? Requests with it fail at once with 401.`}
                confirmLabel="Revoke key"
                onConfirm={() =>
                  revoke.run(async () => {
                    await api("POST", `/keys/${apiKey.id}/revoke`);
                    await props.onRevoked();
                  })
                }
              />
            )}
          </div>
        )}
      </td>
    </tr>
  );
}

export function KeysPage() {
  const keys = useResource<{ data: ApiKeyView[] }>("/keys");
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const list = keys.data?.data ?? [];
  return (
    <section>
      <h1>API keys</h1>
      <p class="muted">
        Send a key as <code>Authorization: Bearer svk_…</code>. To rotate, create a new key, switch
        your integration to it, then revoke the old one.
      </p>
      {created ? (
        <SecretOnce label="API key" value={created.key} onDone={() => setCreated(undefined)}>
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
                <KeyRow key={apiKey.id} apiKey={apiKey} onRevoked={keys.reload} />
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
