/**
 * The clock of one read, and what the read's answer owes to it.
 *
 * A conditional read (docs/api-conventions.md, "Caching") is tagged from the shop's data version:
 * the tag changes when a write commits. Some answers also change with no write at all, when the
 * clock passes an instant: a work order becomes OVERDUE at the midnight (UTC) after its due date; a
 * warning that shows an age in minutes reads differently each minute. Such an answer says so while
 * it is built: `changesAt(instant)` names the next instant at which it would read differently, and
 * the read's tag then holds only until that instant (the earliest one named). Everything of one
 * read judges time by `now`, one instant, so the answer and the instant it names agree.
 *
 * A moment that only says when the answer was made (an order breakdown's `generatedAt`) is not a
 * change of the answer and names nothing.
 */
export class AnswerClock {
  readonly now: Date;
  #changesAt = Number.POSITIVE_INFINITY;

  constructor(now: Date = new Date()) {
    this.now = now;
  }

  /** The answer being built reads differently from `instant` on (if nothing is written before then). */
  changesAt(instant: Date): void {
    const at = instant.getTime();
    if (Number.isFinite(at) && at < this.#changesAt) this.#changesAt = Math.max(at, this.now.getTime());
  }

  /** The earliest instant named (epoch milliseconds), or null when the answer does not depend on the clock. */
  get validUntil(): number | null {
    return Number.isFinite(this.#changesAt) ? this.#changesAt : null;
  }
}

/** The next midnight (UTC) after the day `date` (YYYY-MM-DD): when a "past `date`" test starts to hold. */
export function dayAfter(date: string): Date {
  const day = new Date(`${date}T00:00:00.000Z`);
  return new Date(day.getTime() + 86_400_000);
}

/**
 * When an age shown in whole `unitMs` (seconds, minutes…) since `since` next changes, seen at `now`:
 * a warning that prints "failing for 12 min" calls `clock.changesAt(ageChangesAt(since, 60_000, clock.now))`.
 */
export function ageChangesAt(since: Date, unitMs: number, now: Date): Date {
  const age = Math.max(0, now.getTime() - since.getTime());
  return new Date(since.getTime() + (Math.floor(age / unitMs) + 1) * unitMs);
}
