import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { runAsWorkOf, type WorkHandle } from '../../kernel/abandoned-work.ts';

/**
 * The request ran out of its time budget (BOMCORE_REQUEST_DEADLINE_MS). Not the client's input and
 * not a bug: src/http/errors/unavailable.ts classifies it (by its name) as 503 + `Retry-After`, on REST and
 * /graphql alike.
 */
export class DeadlineExceededError extends Error {
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    super(`the request did not finish within its ${deadlineMs} ms budget`);
    this.name = 'DeadlineExceededError';
    this.deadlineMs = deadlineMs;
  }
}

const TIMER = Symbol('bomcore.deadline.timer');
const EXPIRED = Symbol('bomcore.deadline.expired');
const WORK = Symbol('bomcore.deadline.work');

type Timed = FastifyRequest & { [TIMER]?: NodeJS.Timeout; [EXPIRED]?: boolean; [WORK]?: WorkHandle };

/** True once the request's deadline passed (its answer, 503, is already sent): long work may stop early. */
export function pastDeadline(request: FastifyRequest): boolean {
  return (request as Timed)[EXPIRED] === true;
}

/**
 * `handler`, made async, with what it returns or throws once the deadline answered dropped instead of
 * sent a second time. Where the reply is already on its way (the deadline's 503, or a synchronous
 * handler that called reply.send itself, as the reference page's do) it resolves to `reply`, which
 * Fastify awaits. Not undefined: while the answer is still in its async onSend hooks, Fastify would
 * send an async handler's undefined a second time ("Reply was already sent"). A wrapper that does work
 * of its own after the handler (the Idempotency-Key's commit) is wrapped in this too, outermost.
 */
export function droppingLateAnswers(handler: RouteHandlerMethod): RouteHandlerMethod {
  return async function deadlineAware(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    try {
      const result: unknown = handler.call(this, request, reply);
      const value: unknown = await result;
      if (pastDeadline(request)) return reply;
      return value === undefined && !(result instanceof Promise) ? reply : value;
    } catch (error) {
      if (pastDeadline(request)) {
        request.log.info({ err: error }, 'request failed after its deadline');
        return reply;
      }
      throw error;
    }
  };
}

/**
 * A request still running `deadlineMs` after it arrived is answered 503 UNAVAILABLE + `Retry-After`
 * (through the error handlers, as `DeadlineExceededError`) instead of holding its client and a slot
 * of the process. Its handler's work is abandoned then (src/kernel/abandoned-work.ts): a statement
 * it has not sent yet is not sent, nor is a wait for a pooled connection served, so nothing of it
 * stays queued for the database after its answer; a statement already running is cancelled by the
 * database at `statement_timeout` (src/db/orm.ts); whatever the handler returns later is dropped.
 * Health checks are exempt. `deadlineMs` 0 turns it off.
 *
 * A request is answered once: the deadline answers only a request whose answer has not begun. Once an
 * answer reaches the onSend hooks (this module's is the first), the deadline is off; an answer may
 * wait there on the database (its Idempotency-Key's record, src/http/requests/idempotency-hooks.ts),
 * and a 503 sent over it made Fastify write two answers ("Reply was already sent"), the second in
 * its default error format, with the status of the first.
 */
export function registerDeadline(app: FastifyInstance, deadlineMs: number): void {
  if (deadlineMs <= 0) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/healthz') || request.url.startsWith('/readyz')) return;
    const timed = request as Timed;
    const work: WorkHandle = { abandoned: false };
    timed[WORK] = work;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      timed[EXPIRED] = true;
      work.abandoned = true;
      request.log.warn({ deadlineMs }, 'request deadline exceeded');
      reply.send(new DeadlineExceededError(deadlineMs));
    }, deadlineMs);
    timer.unref();
    timed[TIMER] = timer;
  });
  const clear = (request: FastifyRequest) => {
    const timer = (request as Timed)[TIMER];
    if (timer) clearTimeout(timer);
  };
  // Synchronous, so no turn of the event loop passes between the answer's send and this.
  app.addHook('onSend', (request, _reply, payload, done) => {
    clear(request);
    done(null, payload);
  });
  app.addHook('onResponse', async (request) => clear(request));
  app.addHook('onRequestAbort', async (request) => clear(request));
  // Innermost: the route's own handler runs as the request's work (its statements are refused once
  // the deadline answered); a wrapper around it (the Idempotency-Key's commit) is not.
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = droppingLateAnswers(function asRequestWork(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const work = (request as Timed)[WORK];
      return work ? runAsWorkOf(work, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    });
  });
}
