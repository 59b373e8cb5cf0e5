/**
 * Whether the date a text starts with (`YYYY-MM-DD…`) is a day of the calendar. `Date.parse` rolls
 * a day that does not exist over into the next month (`2026-02-30` reads as March 2nd), so a
 * parser of dates people type asks this first: such a date is refused, not read as another day.
 * A text without that shape is not judged here (true).
 */
export function isCalendarDay(text: string): boolean {
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(text.trim());
  if (!date) return true;
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const utc = new Date(Date.UTC(year, month - 1, day));
  return utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === day;
}
