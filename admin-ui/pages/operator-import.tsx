// Operators: import bank data for an account - upload a JSON file or paste it, the
// same document as `svc import` and POST /operator/import. Every problem is listed; a document
// with any problem is rejected whole. After an import, what was written is shown.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, api } from "../api.ts";
import { CopyId } from "../components/copy.tsx";
import { failureText } from "../components/feedback.tsx";
import { Notice, SubmitButton } from "../components/ui.tsx";
import { useAction } from "../use-action.ts";
import { useResource } from "../use-resource.ts";

interface ImportSummary {
  service_account_id: string;
  connections: {
    id: string;
    external_id: string;
    created: boolean;
    status: string;
    status_changed: boolean;
    accounts: {
      account_id: string;
      external_id: string;
      created: boolean;
      balance_changed: boolean;
      new_transactions: number;
      updated_transactions: number;
    }[];
  }[];
  new_transactions: number;
  events_raised: number;
}

type Problem = { path: string; record_id?: string; message: string };

function Result(props: { summary: ImportSummary }) {
  const { summary } = props;
  return (
    <div class="import-result" data-testid="import-result">
      <p>
        Imported {summary.connections.length} connection
        {summary.connections.length === 1 ? "" : "s"}: {summary.new_transactions} new transaction
        {summary.new_transactions === 1 ? "" : "s"}, {summary.events_raised} event
        {summary.events_raised === 1 ? "" : "s"} raised.
      </p>
      <ul>
        {summary.connections.map((c) => (
          <li key={c.id} data-testid="imported-connection">
            <strong>{c.external_id}</strong> ({c.created ? "new" : "updated"}, status {c.status}
            {c.status_changed ? ", changed" : ""}) <CopyId label="connection id" value={c.id} />
            <ul>
              {c.accounts.map((a) => (
                <li key={a.account_id}>
                  {a.external_id}: {a.created ? "new account" : "updated"}, {a.new_transactions} new
                  and {a.updated_transactions} updated transaction
                  {a.new_transactions + a.updated_transactions === 1 ? "" : "s"}
                  {a.balance_changed ? ", balance changed" : ""}{" "}
                  <CopyId label="account id" value={a.account_id} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function OperatorImportPage() {
  const accounts = useResource<{ data: { id: string; name: string }[] }>("/operator/accounts");
  const [accountId, setAccountId] = useState("");
  const [text, setText] = useState("");
  const [fileName, setFileName] = useState<string | undefined>(undefined);
  const [summary, setSummary] = useState<ImportSummary | undefined>(undefined);
  const [problems, setProblems] = useState<Problem[] | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const outcome = useRef<HTMLDivElement>(null);
  const action = useAction();
  const list = accounts.data?.data ?? [];
  // The first account until the operator picks one; a pick made while the list was still
  // arriving is never overwritten (the update reads the current choice, not a stale one).
  const firstAccountId = list[0]?.id;
  useEffect(() => {
    if (firstAccountId) setAccountId((chosen) => chosen || firstAccountId);
  }, [firstAccountId]);
  // The outcome (result or problems) takes focus: the button that sent it stays, but the
  // answer is what the operator needs to read next.
  useLayoutEffect(() => {
    if (action.version > 0) outcome.current?.focus();
  }, [action.version]);
  return (
    <section>
      <h1>Import bank data</h1>
      <p class="muted">
        The JSON document of <code>svc import</code>: connections with their accounts, balances and
        transactions, upserted on their ids. A document with any problem is rejected whole and
        nothing is written.
      </p>
      <form
        class="card"
        aria-labelledby="import-heading"
        onSubmit={(event) => {
          event.preventDefault();
          setSummary(undefined);
          setProblems(undefined);
          setMessage(undefined);
          void action.run(async () => {
            let document: unknown;
            try {
              document = JSON.parse(text);
            } catch (error) {
              setMessage(`The document is not valid JSON: ${(error as Error).message}`);
              return;
            }
            try {
              setSummary(
                await api<ImportSummary>(
                  "POST",
                  `/operator/import?account=${encodeURIComponent(accountId)}`,
                  document,
                ),
              );
            } catch (failure) {
              if (failure instanceof ApiFailure && failure.problems) {
                setMessage(failure.message.split("\n")[0]);
                setProblems(failure.problems);
              } else setMessage(failureText(failure));
            }
          });
        }}
      >
        <h2 id="import-heading">Document</h2>
        <div class="field">
          <label for="import-account">Account</label>
          <select
            id="import-account"
            name="account"
            value={accountId}
            onChange={(e) => setAccountId(e.currentTarget.value)}
          >
            {list.map((a) => (
              <option value={a.id}>
                {a.name} ({a.id.slice(0, 8)}…)
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="import-file">Upload a JSON file</label>
          <input
            id="import-file"
            type="file"
            accept=".json,application/json"
            onChange={async (e) => {
              const file = e.currentTarget.files?.[0];
              if (!file) return;
              setFileName(file.name);
              setText(await file.text());
            }}
          />
          {fileName && <p class="hint">Read {fileName} into the box below.</p>}
        </div>
        <div class="field">
          <label for="import-json">Or paste the JSON</label>
          <textarea
            id="import-json"
            name="document"
            rows={10}
            spellcheck={false}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        </div>
        <SubmitButton
          busy={action.busy}
          busyLabel="Importing…"
          disabled={!text.trim() || !accountId}
        >
          Import
        </SubmitButton>
      </form>
      <div ref={outcome} tabIndex={-1} aria-live="polite" data-testid="import-outcome">
        {message && (
          <Notice kind="error">
            <span data-testid="import-error">{message}</span>
          </Notice>
        )}
        {problems && (
          <section aria-labelledby="problems-heading">
            <h2 id="problems-heading">Problems</h2>
            <ol class="problems" data-testid="import-problems">
              {problems.map((p) => (
                <li>
                  <code>{p.path}</code>
                  {p.record_id !== undefined && <> (id {p.record_id})</>}: {p.message}
                </li>
              ))}
            </ol>
          </section>
        )}
        {summary && <Result summary={summary} />}
      </div>
    </section>
  );
}
