import { STATUS_CODES } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Blocker, ErrorCode, FieldError, MissingRef, PlanNeeded } from '../../kernel/domain-error.ts';

/** The one table from error code to HTTP status (docs/api-conventions.md). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN_SCOPE: 403,
  PLAN_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export const API_VERSION = '1.2';

export interface Problem {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId: string;
  apiVersion: string;
  errors?: FieldError[];
  blockers?: Blocker[];
  missing?: MissingRef[];
  plan?: PlanNeeded;
}

export interface ProblemInput {
  code: ErrorCode;
  detail: string;
  errors?: FieldError[] | undefined;
  blockers?: Blocker[] | undefined;
  missing?: MissingRef[] | undefined;
  plan?: PlanNeeded | undefined;
}

export function buildProblem(requestId: string, input: ProblemInput): Problem {
  const status = STATUS_BY_CODE[input.code];
  const problem: Problem = {
    type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail: input.detail, code: input.code,
    requestId, apiVersion: API_VERSION,
  };
  if (input.errors?.length) problem.errors = input.errors;
  if (input.blockers?.length) problem.blockers = input.blockers;
  if (input.missing?.length) problem.missing = input.missing;
  if (input.plan) problem.plan = input.plan;
  return problem;
}

/** Sends RFC 9457 problem+json. Headers specific to a code (Allow, WWW-Authenticate…) are set by the caller. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, input: ProblemInput): FastifyReply {
  const problem = buildProblem(request.id, input);
  return reply.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}
