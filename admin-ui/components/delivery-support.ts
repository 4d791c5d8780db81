// Small helpers of the delivery log (issue 19). Kept local to the log so the shared time
// formatting and feedback pieces can replace them in one place at merge.

/** "in 12 min", "in 45 s": a wait for people. */
export function formatWait(seconds: number): string {
  if (seconds >= 3600)
    return `${Math.floor(seconds / 3600)} h ${Math.round((seconds % 3600) / 60)} min`;
  if (seconds >= 60) return `${Math.ceil(seconds / 60)} min`;
  return `${seconds} s`;
}

/** Local date and time, as the browser's zone shows it. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** The exact instant in UTC, shown on hover next to a local time. */
export function utcTitle(iso: string): string {
  return `${iso.replace("T", " ").replace(/\.\d{3}Z$/, "")} UTC`;
}

/** The hour of a bucket in local time, e.g. "14:00". */
export function localHour(iso: string): string {
  return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

/** The body pretty-printed for reading; the exact bytes stay what Copy copies. */
export function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
