// Small building blocks shared by every page: notices, loading and empty states, fields,
// buttons with a busy state, and a secret shown exactly once.
import type { ComponentChildren, JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useFocusWhen } from "../use-focus.ts";
import { CopyButton } from "./copy.tsx";
import { failureText } from "./feedback.tsx";
import { localTime } from "./format.ts";

export { CopyButton };

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
  return <Notice kind="error">{failureText(props.error)}</Notice>;
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

/** A labelled text input (hint and error announced with it) bound to a string. */
export function TextField(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
  input: {
    name: string;
    type?: "text" | "email" | "password" | "url";
    autoComplete?: string;
    autoCapitalize?: "characters" | "off";
    inputMode?: "text" | "url" | "email";
    spellcheck?: boolean;
    placeholder?: string;
    required?: boolean;
    minLength?: number;
    maxLength?: number;
    class?: string;
  };
}) {
  return (
    <Field label={props.label} hint={props.hint} error={props.error}>
      {(ids) => {
        // Preact types <input> per `type`; the attributes above are valid for each of ours.
        const attributes = { ...props.input, ...ids } as JSX.IntrinsicElements["input"];
        return (
          <input
            {...attributes}
            value={props.value}
            onInput={(e) => props.onValue(e.currentTarget.value)}
          />
        );
      }}
    </Field>
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

/** A form's submit button that says what it is doing while the form is sent. */
export function SubmitButton(props: {
  busy: boolean;
  busyLabel: string;
  children: ComponentChildren;
  disabled?: boolean;
}) {
  return (
    <button
      type="submit"
      class="button button-primary"
      disabled={props.busy || props.disabled}
      aria-busy={props.busy}
    >
      {props.busy ? props.busyLabel : props.children}
    </button>
  );
}

/** A key or signing secret, shown once with a copy button and a warning. Never stored. */
export function SecretOnce(props: {
  label: string;
  value: string;
  onDone: () => void;
  children?: ComponentChildren;
}) {
  // The form that made it is gone: focus comes here, so keyboard and screen-reader users land
  // on the secret (focus after an action is never <body>).
  const section = useRef<HTMLElement>(null);
  useFocusWhen(section, true, []);
  return (
    <section
      ref={section}
      tabIndex={-1}
      class="secret-once"
      aria-label={`New ${props.label}`}
      data-testid="secret-once"
    >
      <Notice kind="warning">
        <strong>Copy this {props.label} now.</strong> It is shown only once; Svc keeps only a hash
        and cannot show it again.
      </Notice>
      <div class="secret-row">
        <code class="secret-value" data-testid="secret-value">
          {props.value}
        </code>
        <CopyButton value={props.value} label={props.label} />
      </div>
      {props.children}
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
  return localTime(iso);
}

/** The current time, refreshed every `intervalMs` (for countdowns and "in 40 s"). */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** "1 h 02 min", "4 min 05 s", "12 s": a remaining time for people. */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  if (h > 0) return `${h} h ${pad(m)} min`;
  if (m > 0) return `${m} min ${pad(s)} s`;
  return `${s} s`;
}

/** Re-runs `work` every `intervalMs` while the page is visible (live delivery log, statuses). */
export function usePolling(work: () => void, intervalMs: number): void {
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") work();
    }, intervalMs);
    return () => clearInterval(timer);
  }, [work, intervalMs]);
}

/** A value with a button that copies it (API base URL, source IP). */
export function CopyValue(props: { value: string; label: string }) {
  return (
    <span class="copy-value">
      <code>{props.value}</code>
      <CopyButton value={props.value} label={props.label} />
    </span>
  );
}
