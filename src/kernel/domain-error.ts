/** Stable error codes of the public contract (docs/api-conventions.md). */
export type ErrorCode =
  | 'INVALID_INPUT' | 'UNAUTHENTICATED' | 'FORBIDDEN_SCOPE' | 'NOT_FOUND' | 'METHOD_NOT_ALLOWED' | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'RATE_LIMITED' | 'INTERNAL' | 'UNAVAILABLE'
  | 'IDEMPOTENCY_KEY_REUSED' | 'PLAN_REQUIRED';

export interface FieldError { field: string; message: string }

/** The one-line detail of field errors (`field: message; …`): what `detail` says beside `errors[]`. */
export function detailOf(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
export interface Blocker { code: string; message: string }
export interface MissingRef { kind: string; id: string }
/** What PLAN_REQUIRED names: the plan the operation needs and the shop's own (the shops module's plan values). */
export interface PlanNeeded { required: string; current: string }

/**
 * Codes of expected business failures: a mutation answers them as data (its payload's `userErrors`),
 * never as a GraphQL error. Every other code (scope, limits, INTERNAL, UNAVAILABLE) stays an error.
 */
export const USER_ERROR_CODES = ['INVALID_INPUT', 'NOT_FOUND', 'CONFLICT'] as const;
export type UserErrorCode = (typeof USER_ERROR_CODES)[number];

/** A domain error as plain data: what a user error carries, and all that REST's problem+json needs back. */
export interface DomainErrorDetails {
  code: UserErrorCode;
  message: string;
  errors: FieldError[];
  blockers: Blocker[];
  missing: MissingRef[];
}

/**
 * An expected business failure with a stable code. Services throw it; a GraphQL mutation answers it
 * as a user error of its payload (a query, as an error with the code in `extensions`), and the REST
 * facade turns it into problem+json with the matching HTTP status.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly blockers: Blocker[] | undefined;
  readonly missing: MissingRef[] | undefined;
  readonly plan: PlanNeeded | undefined;

  constructor(code: ErrorCode, message: string, extra: { errors?: FieldError[]; blockers?: Blocker[]; missing?: MissingRef[]; plan?: PlanNeeded } = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.errors = extra.errors;
    this.blockers = extra.blockers;
    this.missing = extra.missing;
    this.plan = extra.plan;
  }

  /** PLAN_REQUIRED (403): the shop's plan does not include this operation; names both plans. */
  static planRequired(operation: string, required: string, current: string): DomainError {
    return new DomainError('PLAN_REQUIRED', `${operation} is an ${required}-plan operation; this shop is on the ${current} plan`, { plan: { required, current } });
  }

  /** INVALID_INPUT for these field errors, its detail saying the same (`field: message; …`). */
  static invalidFields(errors: readonly FieldError[], extra: { missing?: MissingRef[] } = {}): DomainError {
    return new DomainError('INVALID_INPUT', detailOf(errors), { errors: [...errors], ...extra });
  }

  static invalid(field: string, message: string): DomainError {
    return new DomainError('INVALID_INPUT', `${field}: ${message}`, { errors: [{ field, message }] });
  }

  static notFound(kind: string, id: string): DomainError {
    return new DomainError('NOT_FOUND', `${kind} ${id} not found`, { missing: [{ kind, id }] });
  }

  /** The error again from its details (a user error read back): the same code, message and lists. */
  static fromDetails(details: DomainErrorDetails): DomainError {
    return new DomainError(details.code, details.message, { errors: details.errors, blockers: details.blockers, missing: details.missing });
  }

  /** Whether this is an expected business failure, answered as a user error; its details if so. */
  get details(): DomainErrorDetails | null {
    if (!(USER_ERROR_CODES as readonly string[]).includes(this.code)) return null;
    return { code: this.code as UserErrorCode, message: this.message, errors: this.errors ?? [], blockers: this.blockers ?? [], missing: this.missing ?? [] };
  }
}
