// Calendar dates as the schema stores them: YYYY-MM-DD, in UTC.

const dayMs = 86_400_000;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
export function isCalendarDate(text: string): boolean {
  const match = datePattern.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

export function toDateString(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Days since 1970-01-01 (UTC) of an instant. */
export function dayNumber(at: Date | number): number {
  return Math.floor((typeof at === "number" ? at : at.getTime()) / dayMs);
}

export function dayStart(day: number): Date {
  return new Date(day * dayMs);
}

export function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * dayMs);
}

export { dayMs };
