import type { FastifyInstance, FastifyRequest } from 'fastify';
import { beginTurn, endTurn, markCostly, runInTurn, type Turn } from '../../kernel/cooperative.ts';

const TURN = Symbol('bomcore.turn');
type WithTurn = FastifyRequest & { [TURN]?: Turn };

/**
 * Every HTTP request runs in a turn of its own (src/kernel/cooperative.ts): cheap from its arrival, so a
 * costly request's yields let it go first, until the work gate marks it costly. The turn ends when
 * the response is sent or the connection closes. Registered first, so every later hook and the
 * handler run inside the turn.
 */
export function registerRequestTurns(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    const turn = beginTurn();
    (request as WithTurn)[TURN] = turn;
    reply.raw.once('close', () => endTurn(turn));
    runInTurn(turn, done);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const turn = (request as WithTurn)[TURN];
    if (turn) endTurn(turn);
    done();
  });
}

/** The request's work is costly: it gives way to cheap requests at each yield. */
export function markRequestCostly(request: FastifyRequest): void {
  const turn = (request as WithTurn)[TURN];
  if (turn) markCostly(turn);
}
