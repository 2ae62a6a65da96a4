// Plan dates are calendar days (UTC), written YYYY-MM-DD; they compare as text.

const DAY_MS = 86_400_000;

/** The calendar day `days` after (negative: before) `date`. */
export function addDays(date: string, days: number): string {
  if (days === 0) return date;
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Today (UTC) as YYYY-MM-DD. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Whether `text` is a real calendar day written YYYY-MM-DD. */
export function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const time = Date.parse(`${text}T00:00:00.000Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === text;
}
