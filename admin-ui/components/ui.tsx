// Small building blocks shared by every page: notices, loading and empty states, fields,
// buttons with a busy state, two-step confirmation, and a secret shown exactly once.
import type { ComponentChildren, JSX } from "preact";
import { useId, useState } from "preact/hooks";
import { ApiFailure } from "../api.ts";

export function Notice(props: {
  kind: "error" | "success" | "info" | "warning";
  children: ComponentChildren;
}) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
      {props.children}
    </div>
  );
}

export function ErrorNotice(props: { error: unknown }) {
  if (!props.error) return null;
  const message = props.error instanceof ApiFailure ? props.error.message : String(props.error);
  return <Notice kind="error">{message}</Notice>;
}

export function Loading(props: { label?: string }) {
  return (
    <p class="loading" role="status">
      {props.label ?? "Loading…"}
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  children: (inputProps: {
    id: string;
    "aria-describedby"?: string;
    "aria-invalid"?: boolean;
  }) => JSX.Element;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children({
        id,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(props.error ? { "aria-invalid": true } : {}),
      })}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** Runs an async action; while it runs the button is disabled and says so. */
export function ActionButton(props: {
  onClick: () => Promise<void> | void;
  children: ComponentChildren;
  kind?: "primary" | "secondary" | "danger";
  busyLabel?: string;
  disabled?: boolean;
  type?: "button" | "submit";
  testId?: string;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type={props.type ?? "button"}
      class={`button button-${props.kind ?? "secondary"}`}
      disabled={busy || props.disabled}
      aria-busy={busy}
      data-testid={props.testId}
      onClick={async (event) => {
        if (props.type === "submit") return;
        event.preventDefault();
        setBusy(true);
        try {
          await props.onClick();
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? (props.busyLabel ?? "Working…") : props.children}
    </button>
  );
}

/** A destructive action asks once more, inline, before it runs. */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  kind?: "danger" | "secondary";
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        class={`button button-${props.kind ?? "danger"}`}
        onClick={() => setAsking(true)}
      >
        {props.label}
      </button>
    );
  }
  return (
    <fieldset class="confirm">
      <legend>{props.question}</legend>
      <ActionButton
        kind={props.kind ?? "danger"}
        onClick={async () => {
          await props.onConfirm();
          setAsking(false);
        }}
      >
        {props.confirmLabel}
      </ActionButton>
      <button type="button" class="button button-secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}

/** A key or signing secret, shown once with a copy button and a warning. Never stored. */
export function SecretOnce(props: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="secret-once" aria-label={props.label}>
      <Notice kind="warning">
        <strong>Copy this {props.label} now.</strong> It is shown only once; Svc keeps only a hash
        and cannot show it again.
      </Notice>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret-value">
          {props.value}
        </code>
        <button
          type="button"
          class="button button-secondary"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(props.value);
              setCopied(true);
            } catch {
              setCopied(false);
            }
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <button type="button" class="button button-primary" onClick={props.onDone}>
        I have stored it safely
      </button>
    </section>
  );
}

export function Badge(props: {
  tone: "good" | "warn" | "bad" | "neutral";
  children: ComponentChildren;
}) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
