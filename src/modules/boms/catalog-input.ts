import { parseDecimalInput } from '../../kernel/decimals.ts';
import { DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { MAX_LEAD_TIME_DAYS, MAX_STRING_LENGTH } from '../../kernel/limits.ts';

// Input checks shared by the catalogue writes (materials, cost factors, assembly bills, BOMs):
// the same bounds a dataset file is held to, so anything written here exports and loads again.

/** Ids are keys of varchar(255) columns. */
export const MAX_ID_LENGTH = 255;
/** Lines per list of one recipe (raw, sub-assembly, cost factor): keeps one save one bounded statement. */
export const MAX_LINES_PER_LIST = 1000;

/** Collects field errors and throws them together as one INVALID_INPUT. */
export class InputErrors {
  readonly list: FieldError[] = [];

  add(field: string, message: string): void {
    this.list.push({ field, message });
  }

  /** A text field: at most MAX_STRING_LENGTH characters; `required` also refuses blank text. Returns the value. */
  text<T extends string | null | undefined>(field: string, value: T, options: { required?: boolean } = {}): T {
    if (typeof value !== 'string') return value;
    if (options.required && value.trim() === '') this.add(field, 'must not be empty');
    else if (value.length > MAX_STRING_LENGTH) this.add(field, `must be at most ${MAX_STRING_LENGTH} characters, got ${value.length}`);
    return value;
  }

  /** A client-chosen id: the dataset's form for its kind (e.g. `^ASM-.+$`) and at most MAX_ID_LENGTH characters. */
  id(field: string, value: string, form: RegExp, formText: string): string {
    if (value.length > MAX_ID_LENGTH) this.add(field, `must be at most ${MAX_ID_LENGTH} characters, got ${value.length}`);
    else if (!form.test(value)) this.add(field, `must have the form ${formText}, got ${JSON.stringify(value)}`);
    return value;
  }

  /** An exact decimal as its canonical text, or null (with an error) when out of range. */
  decimal(field: string, value: string, check: 'positive' | 'nonNegative' | 'waste'): string | null {
    // Out of range, the message states the whole range of this kind (a quantity of -1 is not told "between 0 and …" when 0 is refused too).
    const parsed = parseDecimalInput(value, field, this.list, check === 'positive' ? { positive: true } : check === 'nonNegative' ? { nonNegative: true } : {});
    if (!parsed) return null;
    if (check === 'waste' && (parsed.lt(0) || parsed.cmp(1000) >= 0)) this.add(field, `must be at least 0 and less than 1000, got ${parsed.toFixed()}`);
    else return parsed.toFixed();
    return null;
  }

  /** A planning lead time: whole days from 0 to MAX_LEAD_TIME_DAYS; null is refused (0 is the default). Returns the value. */
  leadTimeDays(field: string, value: number | null | undefined): number | undefined {
    if (value === undefined) return undefined;
    if (value === null) this.add(field, 'must not be null');
    else if (!Number.isInteger(value) || value < 0 || value > MAX_LEAD_TIME_DAYS) this.add(field, `must be a whole number of days from 0 to ${MAX_LEAD_TIME_DAYS}, got ${value}`);
    else return value;
    return undefined;
  }

  /** A list no longer than MAX_LINES_PER_LIST. */
  lineCount(field: string, lines: readonly unknown[] | null | undefined): void {
    if (lines && lines.length > MAX_LINES_PER_LIST) this.add(field, `must have at most ${MAX_LINES_PER_LIST} lines, got ${lines.length}`);
  }

  /** Throws INVALID_INPUT naming every field at fault, if any. */
  throwIfAny(): void {
    if (this.list.length > 0) {
      throw DomainError.invalidFields(this.list);
    }
  }
}
