import { parseDecimalInput } from '../../kernel/decimals.ts';
import { DomainError, type FieldError } from '../../kernel/domain-error.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../kernel/limits.ts';
import { WORK_ORDER_PRIORITIES, type WorkOrderPriority } from './work-order-vocabulary.ts';

// The value rules of a work order's header fields, one home for the header edit and the create:
// the same field gets the same message whichever write sends it.

export interface HeaderFieldValues {
  name?: string | null;
  description?: string | null;
  notes?: string | null;
  priority?: WorkOrderPriority | null;
  dueDate?: string | null;
  sourceOrderIds?: string[] | null;
  tags?: string[] | null;
  plannedLaborCost?: string | null;
  actualLaborCost?: string | null;
}

/** The limits of src/kernel/limits.ts, as the header's own checks name them. */
export const HEADER_LIMITS = { name: STRING_LIMITS.name, text: STRING_LIMITS.text, tags: LIST_LIMITS.tags, tag: STRING_LIMITS.tag, sourceOrderIds: LIST_LIMITS.ids } as const;

export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** Field errors of header values: absent fields are not judged; `null` only where it cannot clear. */
export function headerFieldErrors(values: HeaderFieldValues): FieldError[] {
  const errors: FieldError[] = [];
  if (values.name === null || (typeof values.name === 'string' && values.name.trim() === '')) {
    errors.push({ field: 'name', message: 'must be a non-empty string (a name cannot be cleared)' });
  } else if (typeof values.name === 'string' && values.name.length > HEADER_LIMITS.name) {
    errors.push({ field: 'name', message: `must be at most ${HEADER_LIMITS.name} characters` });
  }
  for (const field of ['description', 'notes'] as const) {
    const value = values[field];
    if (typeof value === 'string' && value.length > HEADER_LIMITS.text) errors.push({ field, message: `must be at most ${HEADER_LIMITS.text} characters` });
  }
  if (values.priority === null) errors.push({ field: 'priority', message: `cannot be cleared; one of ${WORK_ORDER_PRIORITIES.join(', ')}` });
  if (typeof values.dueDate === 'string' && !isCalendarDate(values.dueDate)) errors.push({ field: 'dueDate', message: 'must be a calendar date YYYY-MM-DD' });
  if (values.tags && (values.tags.length > HEADER_LIMITS.tags || values.tags.some((t) => t.length === 0 || t.length > HEADER_LIMITS.tag))) {
    errors.push({ field: 'tags', message: `at most ${HEADER_LIMITS.tags} tags of 1–${HEADER_LIMITS.tag} characters` });
  }
  if (values.sourceOrderIds && values.sourceOrderIds.length > HEADER_LIMITS.sourceOrderIds) {
    errors.push({ field: 'sourceOrderIds', message: `at most ${HEADER_LIMITS.sourceOrderIds} order ids` });
  }
  for (const field of ['plannedLaborCost', 'actualLaborCost'] as const) {
    const value = values[field];
    if (typeof value === 'string') parseDecimalInput(value, field, errors, { nonNegative: true });
  }
  return errors;
}

/** One INVALID_INPUT naming every field at fault (nothing thrown when there are none). */
export function throwIfInvalid(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw DomainError.invalidFields(errors);
}
