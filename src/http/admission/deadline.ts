import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

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

type Timed = FastifyRequest & { [TIMER]?: NodeJS.Timeout; [EXPIRED]?: boolean };

/** True once the request's deadline passed (its answer, 503, is already sent): long work may stop early. */
export function pastDeadline(request: FastifyRequest): boolean {
  return (request as Timed)[EXPIRED] === true;
}

/**
 * A request still running `deadlineMs` after it arrived is answered 503 UNAVAILABLE + `Retry-After`
 * (through the error handlers, as `DeadlineExceededError`) instead of holding its client and a slot
 * of the process. The work it started is not killed: the database cancels its statements at
 * `statement_timeout` (src/db/orm.ts), and whatever it returns later is dropped. Health checks are
 * exempt. `deadlineMs` 0 turns it off.
 */
export function registerDeadline(app: FastifyInstance, deadlineMs: number): void {
  if (deadlineMs <= 0) return;
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/healthz') || request.url.startsWith('/readyz')) return;
    const timed = request as Timed;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      timed[EXPIRED] = true;
      request.log.warn({ deadlineMs }, 'request deadline exceeded');
      reply.send(new DeadlineExceededError(deadlineMs));
    }, deadlineMs);
    timer.unref();
    timed[TIMER] = timer;
  });
  const clear = async (request: FastifyRequest) => {
    const timer = (request as Timed)[TIMER];
    if (timer) clearTimeout(timer);
  };
  app.addHook('onResponse', clear);
  app.addHook('onRequestAbort', clear);
  // What a handler returns or throws after the deadline answered is dropped, not sent twice. This
  // wrapper makes every handler async; where the reply is already on its way (the deadline's 503, or
  // a synchronous handler that called reply.send itself, as the reference page's do) it resolves to
  // `reply`, which Fastify awaits. Not undefined: while the answer is still in its async onSend hooks,
  // Fastify would send an async handler's undefined a second time ("Reply was already sent").
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = async function deadlineAware(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
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
  });
}
