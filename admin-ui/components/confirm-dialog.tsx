// Confirmation for destructive or disruptive actions (issue 19): a native <dialog> opened with
// showModal(), so the page behind is inert, Escape cancels and focus stays inside. It says
// what will happen. Focus starts on Cancel (the safe answer); when the dialog closes it returns
// to the button that opened it, or, if the action removed that button, to the action's
// feedback (the caller's Feedback takes it) - never to <body>.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { failureText } from "./feedback.tsx";

export function ConfirmDialog(props: {
  /** The button that opens the dialog. */
  label: string;
  /** Accessible name of the opening button when the visible label is not enough. */
  labelFull?: string;
  title: string;
  /** What will happen, in plain words. */
  children: ComponentChildren;
  confirmLabel: string;
  /** Runs the action; a thrown failure is shown in the dialog, which stays open. */
  onConfirm: () => Promise<void> | void;
  kind?: "danger" | "secondary" | "primary";
  testId?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const id = useId();
  const kind = props.kind ?? "danger";
  /** The row, card or section the opener sits in: where focus goes if the opener is gone. */
  const scope = useRef<Element | null>(null);
  const isOpen = useRef(false);

  const open = () => {
    setError(undefined);
    scope.current = trigger.current?.closest("tr, li, form, section") ?? null;
    dialog.current?.showModal();
    isOpen.current = true;
    cancel.current?.focus();
  };
  // Closed, or removed while open by the action it ran: settle focus once the page re-rendered.
  const settleFocus = () =>
    setTimeout(() => {
      if (trigger.current?.isConnected) {
        trigger.current.focus();
        return;
      }
      const active = document.activeElement;
      if (active && active !== document.body && active.isConnected) return;
      const place = scope.current?.isConnected ? scope.current : document.getElementById("main");
      const target =
        place?.querySelector<HTMLElement>("[data-feedback-message]") ??
        document.getElementById("main");
      target?.focus();
    }, 0);
  useEffect(
    () => () => {
      if (isOpen.current) settleFocus();
    },
    [],
  );
  const close = () => {
    dialog.current?.close();
  };
  return (
    <>
      <button
        ref={trigger}
        type="button"
        class={`button button-${kind === "primary" ? "secondary" : kind}`}
        aria-haspopup="dialog"
        {...(props.labelFull ? { "aria-label": props.labelFull } : {})}
        data-testid={props.testId}
        onClick={open}
      >
        {props.label}
      </button>
      <dialog
        ref={dialog}
        class="confirm-dialog"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-body`}
        onClose={() => {
          isOpen.current = false;
          settleFocus();
        }}
      >
        <h2 id={`${id}-title`}>{props.title}</h2>
        <div id={`${id}-body`} class="dialog-body">
          {props.children}
        </div>
        <div aria-live="assertive">
          {error !== undefined && (
            <p class="notice notice-error" data-testid="dialog-error">
              {failureText(error)}
            </p>
          )}
        </div>
        <div class="actions">
          <button
            type="button"
            class={`button button-${kind}`}
            disabled={busy}
            aria-busy={busy}
            onClick={async () => {
              setBusy(true);
              setError(undefined);
              try {
                await props.onConfirm();
                close();
              } catch (failure) {
                setError(failure);
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? "Working…" : props.confirmLabel}
          </button>
          <button
            ref={cancel}
            type="button"
            class="button button-secondary"
            disabled={busy}
            onClick={close}
          >
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
