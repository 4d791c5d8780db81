// How the portal writes times, durations and money: times in
// the browser's own zone and language with a relative form, the exact UTC kept for hovering;
// durations in milliseconds; amounts with Intl.NumberFormat in their own currency.

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["week", 7 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
  ["second", 1000],
];

/** "3 minutes ago", "in 2 hours", "now": the distance from `nowMs`, in the browser's language. */
export function relativeTime(iso: string, nowMs: number = Date.now(), locale?: string): string {
  const ms = new Date(iso).getTime();
  if (Number.isNaN(ms)) return iso;
  const diff = ms - nowMs;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto", style: "long" });
  if (Math.abs(diff) < 10_000) return format.format(0, "second");
  for (const [unit, size] of units) {
    if (Math.abs(diff) >= size || unit === "second")
      return format.format(Math.round(diff / size), unit);
  }
  return format.format(0, "second");
}

/** The local date and time in the browser's zone and language, e.g. "25 Nov 2026, 19:35". */
export function localTime(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
}

/** The exact instant in UTC, for the hover title: "2026-11-25 06:35:16 UTC". */
export function exactUtc(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** The hour of a chart's bucket in the browser's zone and language, e.g. "14:00". */
export function localHour(iso: string, locale?: string, timeZone?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, {
    hour: "2-digit",
    minute: "2-digit",
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
}

/** A duration in whole milliseconds, grouped for reading: "87 ms", "10,000 ms". */
export function formatDurationMs(ms: number, locale?: string): string {
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(ms)} ms`;
}

/**
 * A decimal-string amount in its ISO 4217 currency ("-1234.50", "EUR" -> "-€1,234.50"). The
 * string is handed to Intl as is, so no float rounding happens; an unknown currency code falls
 * back to "amount CODE".
 */
export function formatMoney(amount: string, currency: string, locale?: string): string {
  try {
    const format = new Intl.NumberFormat(locale, { style: "currency", currency });
    // Intl accepts decimal strings (exact), though TypeScript's lib types ask for a number.
    return format.format(amount as unknown as number);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** A JSON body indented for reading; anything that is not JSON is shown as it came. */
export function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
