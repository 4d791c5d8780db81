// Copy buttons: a value such as a connection or account id shown with a button that
// copies it; the outcome is announced through a live region, not only by the button's text.
import { useState } from "preact/hooks";

export function CopyButton(props: { value: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <>
      <button
        type="button"
        class="button button-small button-secondary"
        // The accessible name starts with the visible text (WCAG 2.5.3 "label in name").
        aria-label={`${state === "copied" ? "Copied" : "Copy"} ${props.label}`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(props.value);
            setState("copied");
          } catch {
            setState("failed");
          }
        }}
      >
        {state === "copied" ? "Copied" : "Copy"}
      </button>
      <span class="visually-hidden" aria-live="polite">
        {state === "copied" && `${props.label} copied`}
        {state === "failed" && `Could not copy the ${props.label}; select it and copy by hand.`}
      </span>
    </>
  );
}

/**
 * An identifier with its copy button: "Connection id 3f2a… [Copy]". `labelShown={false}` where
 * the label is already beside it (a definition list's term): it then names only the button.
 */
export function CopyId(props: { label: string; value: string; labelShown?: boolean }) {
  return (
    <span class="copy-id">
      {props.labelShown !== false && <span class="muted small">{props.label} </span>}
      <code class="mono small" data-testid="copy-id-value">
        {props.value}
      </code>{" "}
      <CopyButton value={props.value} label={props.label} />
    </span>
  );
}
