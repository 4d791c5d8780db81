import { exactUtc, localTime, relativeTime } from "./format.ts";
import { useNow } from "./ui.tsx";

/**
 * A moment as people read it: local date and time with the relative form ("25 Nov 2026,
 * 19:35 · 3 minutes ago"); the exact UTC on hover (title) and for machines (datetime).
 */
export function Time(props: {
  iso: string | null | undefined;
  empty?: string;
  relative?: boolean;
}) {
  const now = useNow(30_000);
  if (!props.iso) return <span>{props.empty ?? "—"}</span>;
  return (
    <time dateTime={props.iso} title={exactUtc(props.iso)} data-testid="time">
      {localTime(props.iso)}
      {props.relative !== false && <span class="muted"> · {relativeTime(props.iso, now)}</span>}
    </time>
  );
}
