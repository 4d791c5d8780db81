// Focus after something on screen changed goes to what changed, never to <body>.
import type { RefObject } from "preact";
import { useLayoutEffect } from "preact/hooks";

/**
 * Focuses `target` after a render in which `when` holds, looked at on mount and each time one of
 * `deps` changed. A layout effect, so focus moves in the same commit that shows the change: a
 * plain effect waits for the next frame, and a screen reader (or a test) could meet the new text
 * while focus is still on the control that was used, or on <body> if that control is gone.
 */
export function useFocusWhen(
  target: RefObject<HTMLElement | null>,
  when: boolean,
  deps: readonly unknown[],
): void {
  // The caller names what the focus follows (deps), as useLayoutEffect's own callers do.
  useLayoutEffect(() => {
    if (when) target.current?.focus();
  }, deps);
}
