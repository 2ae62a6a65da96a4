import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { beginTurn, CHEAP_PRECEDENCE_MS, cheapRequestsInFlight, endTurn, markCostly, runInTurn, yieldToLoop } from '../../src/kernel/cooperative.ts';
import { markRequestCostly, registerRequestTurns } from '../../src/http/admission/request-turns.ts';

/**
 * Cheap requests go first (src/kernel/cooperative.ts): a costly request's yield waits while cheap requests
 * are in flight, at most CHEAP_PRECEDENCE_MS per yield; a cheap request's yield never waits for others.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('cheap requests go first', () => {
  it('a costly yield resumes as soon as the last cheap request in flight ends', async () => {
    const costly = beginTurn();
    markCostly(costly);
    const cheap = beginTurn();
    setTimeout(() => endTurn(cheap), 8);
    const started = performance.now();
    await runInTurn(costly, () => yieldToLoop());
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(7);
    expect(waited).toBeLessThan(CHEAP_PRECEDENCE_MS);
    endTurn(costly);
    expect(cheapRequestsInFlight()).toBe(0);
  });

  it(`a costly yield waits at most ${CHEAP_PRECEDENCE_MS} ms, however long cheap requests stay in flight`, async () => {
    const costly = beginTurn();
    markCostly(costly);
    const cheap = beginTurn();
    const started = performance.now();
    await runInTurn(costly, () => yieldToLoop());
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(CHEAP_PRECEDENCE_MS - 2);
    expect(waited).toBeLessThan(CHEAP_PRECEDENCE_MS * 4);
    endTurn(cheap);
    endTurn(costly);
  });

  it('a cheap request\'s yield does not wait for other cheap requests (no two cheap requests wait on each other)', async () => {
    const mine = beginTurn();
    const other = beginTurn();
    const started = performance.now();
    await runInTurn(mine, () => yieldToLoop());
    expect(performance.now() - started).toBeLessThan(CHEAP_PRECEDENCE_MS - 5);
    endTurn(mine);
    endTurn(other);
  });

  it('over HTTP: a costly handler that yields lets a cheap request that arrived meanwhile answer first', async () => {
    const app = Fastify();
    registerRequestTurns(app);
    const finished: string[] = [];
    app.get('/costly', async (request) => {
      markRequestCostly(request);
      await sleep(5); // the cheap request arrives while the costly one is busy
      await yieldToLoop();
      finished.push('costly');
      return { ok: true };
    });
    app.get('/cheap', async () => {
      await sleep(15); // I/O of its own (SQL, say): the costly request's yield waits for it
      finished.push('cheap');
      return { ok: true };
    });
    await app.ready();
    const costly = app.inject({ method: 'GET', url: '/costly' });
    await sleep(1);
    const cheap = app.inject({ method: 'GET', url: '/cheap' });
    await Promise.all([costly, cheap]);
    expect(finished).toEqual(['cheap', 'costly']);
    expect(cheapRequestsInFlight()).toBe(0);
    await app.close();
  });
});
