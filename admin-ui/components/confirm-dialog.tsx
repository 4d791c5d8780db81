// Confirmation for destructive or disruptive actions: a native <dialog> opened with
// showModal(), so the page behind is inert, Escape cancels and focus stays inside. It says
// what will happen. Focus starts on Cancel (the safe answer); when the dialog closes it returns
// to the button that opened it, or, if the action removed that button, to the action's
// feedback in the nearest part of the page still there (the newest message, once the action
// has finished) - never to <body>.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { failureText, newestFeedback } from "./feedback.tsx";

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
  /**
   * The row, card or section the opener sits in, then the ones around it: focus goes to the
   * nearest one still in the page if the opener is gone.
   */
  const scopes = useRef<Element[]>([]);
  const isOpen = useRef(false);
  /** The confirmed action while it runs: focus settles after it (its outcome is then shown). */
  const running = useRef<Promise<void> | undefined>(undefined);

  const open = () => {
    setError(undefined);
    const around: Element[] = [];
    const scope = "tr, li, form, section";
    for (let at = trigger.current?.closest(scope); at; at = at.parentElement?.closest(scope))
      around.push(at);
    scopes.current = around;
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
      const main = document.getElementById("main");
      const place = scopes.current.find((at) => at.isConnected) ?? main;
      const target = (place && newestFeedback(place)) ?? main;
      target?.focus();
    }, 0);
  useEffect(
    () => () => {
      // Removed while open, typically by its own action re-rendering the list: settle focus
      // once that action has finished and shown its outcome.
      if (isOpen.current) void (running.current ?? Promise.resolve()).finally(settleFocus);
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
                const work = Promise.resolve().then(() => props.onConfirm());
                running.current = work.then(
                  () => undefined,
                  () => undefined,
                );
                await work;
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
