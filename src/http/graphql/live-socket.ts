import type { GraphQLFormattedError } from 'graphql';
import { jsonTextNestsDeeper } from '../../kernel/json-depth.ts';
import { MAX_JSON_DEPTH } from '../../kernel/limits.ts';

// The protocol guard of a subscription socket: every message a graphql-ws client sends is screened
// here before mercurius (which serves the subscriptions) sees it, and the guard closes the socket
// with the close codes of graphql-transport-ws (https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md),
// so a client learns why: 4400 a message that is not one of the protocol's, 4401 a `subscribe` before
// the connection was acknowledged, 4403 a refused key, 4408 no `connection_init` in time, 4409 a
// second subscription under an id still running, 4429 a second `connection_init` (and, on this server,
// too many connections of a key or shop). Mercurius would take a repeated id for a new subscription,
// answer an unknown message with the text of a TypeError, and close a refused socket without a code.

/** graphql-transport-ws' close codes (PROTOCOL.md), and this server's use of 4429 for its connection caps. */
export const CLOSE = {
  badRequest: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  initTimeout: 4408,
  duplicateId: 4409,
  tooMany: 4429,
} as const;

/** The part of a `ws` socket the guard uses (the object @fastify/websocket hands the route). */
export interface GuardedSocket {
  readonly protocol: string;
  readonly readyState: number;
  emit(event: string | symbol, ...args: unknown[]): boolean;
  send(data: unknown, ...rest: unknown[]): void;
  close(code?: number, reason?: string): void;
  once(event: 'close', listener: () => void): unknown;
}

/** A subscription's `subscribe` payload, as the client sent it. */
export interface SubscribePayload { query: string; variables?: Record<string, unknown> | null; operationName?: string | null }

export interface SocketGuardOptions {
  /** What is wrong with a subscription document (parse, validation, depth, aliases, cost, input limits); null when it may run. */
  check: (payload: SubscribePayload) => GraphQLFormattedError[] | null;
  /** Subscriptions one connection may hold at once. */
  maxSubscriptions: number;
  /** How long a socket may stay open without `connection_init` (ms). */
  initTimeoutMs: number;
  /**
   * Waits until the connection's key may be sent one more event (its rate-limit budget); called
   * before every `next` message, which is sent once it resolves (in order: a subscription's next
   * event waits for this one).
   */
  pace: (state: SocketState) => Promise<void>;
}

/** What the guard knows of one socket: the live-events registry (live-events.ts) fills `key` once it is authenticated. */
export interface SocketState {
  socket: GuardedSocket;
  /** The key the connection was authenticated with; null until `connection_init` succeeded. */
  key: { keyId: string; shopId: string } | null;
  /** Ids of the subscriptions running (from `subscribe` until `complete` or `error`, either way). */
  readonly ids: Set<string>;
  initialised: boolean;
  /** Closes the socket once, with a graphql-transport-ws code (the reason cut to the 123 bytes a close frame holds). */
  close(code: number, reason: string): void;
  closed: boolean;
}

const OPEN = 1;

/** The message types of the two subprotocols mercurius speaks (graphql-transport-ws, and subscriptions-transport-ws' `graphql-ws`). */
function messageTypes(protocol: string) {
  return protocol === 'graphql-ws'
    ? { init: 'connection_init', subscribe: 'start', complete: 'stop', next: 'data', terminate: 'connection_terminate', known: ['connection_init', 'start', 'stop', 'connection_terminate'] }
    : { init: 'connection_init', subscribe: 'subscribe', complete: 'complete', next: 'next', terminate: null, known: ['connection_init', 'subscribe', 'complete', 'ping', 'pong'] };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A close reason within the 123 bytes of a close frame. */
function closeReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  return text;
}

/**
 * Puts the guard on `socket` before mercurius registers its own listeners: its `message` events
 * pass the screen first, its outgoing messages are paced (`next`) and end their ids (`error`,
 * `complete`). Returns the socket's state.
 */
export function guardSocket(socket: GuardedSocket, options: SocketGuardOptions): SocketState {
  const types = messageTypes(socket.protocol);
  const state: SocketState = {
    socket, key: null, ids: new Set(), initialised: false, closed: false,
    close(code, reason) {
      if (state.closed) return;
      state.closed = true;
      if (socket.readyState !== OPEN) return;
      // subscriptions-transport-ws (the legacy `graphql-ws` subprotocol) refuses a connection with a message of its own first.
      if (socket.protocol === 'graphql-ws' && !state.key) send.call(socket, JSON.stringify({ type: 'connection_error', payload: { message: reason } }));
      socket.close(code, closeReason(reason));
    },
  };
  const initTimer = setTimeout(() => {
    if (!state.key) state.close(CLOSE.initTimeout, 'Connection initialisation timeout');
  }, options.initTimeoutMs);
  initTimer.unref();
  socket.once('close', () => {
    state.closed = true;
    clearTimeout(initTimer);
  });

  const sendError = (id: string, errors: readonly GraphQLFormattedError[]) => {
    if (socket.readyState === OPEN) send.call(socket, JSON.stringify({ type: 'error', id, payload: errors }));
  };

  /** Whether mercurius may see this message; otherwise it was answered (an error for its id, or the socket closed). */
  const screen = (raw: unknown, isBinary: unknown): boolean => {
    if (state.closed) return false;
    let message: unknown;
    const text = isBinary ? Buffer.from(raw as Buffer).toString('utf8') : String(raw);
    // Variables as deep as a request's body may be, inside the message's own two levels (and its payload's), before anything walks them.
    if (jsonTextNestsDeeper(text, MAX_JSON_DEPTH + 2)) {
      state.close(CLOSE.badRequest, `Invalid message received: variables must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
      return false;
    }
    try {
      message = JSON.parse(text);
    } catch {
      state.close(CLOSE.badRequest, 'Invalid message received: not JSON');
      return false;
    }
    if (!isObject(message) || typeof message.type !== 'string' || !types.known.includes(message.type)) {
      state.close(CLOSE.badRequest, `Invalid message received: the type must be one of ${types.known.join(', ')}`);
      return false;
    }
    if (message.type === types.init) {
      if (state.initialised) {
        state.close(CLOSE.tooMany, 'Too many initialisation requests');
        return false;
      }
      state.initialised = true;
      return true;
    }
    if (message.type === types.subscribe) {
      const { id, payload } = message;
      if (typeof id !== 'string' || id === '' || !isObject(payload) || typeof payload.query !== 'string'
        || (payload.variables !== undefined && payload.variables !== null && !isObject(payload.variables))
        || (payload.operationName !== undefined && payload.operationName !== null && typeof payload.operationName !== 'string')) {
        state.close(CLOSE.badRequest, 'Invalid message received: subscribe needs an id and a payload { query, variables?, operationName? }');
        return false;
      }
      if (!state.key) {
        state.close(CLOSE.unauthorized, 'Unauthorized: send connection_init with the key and wait for connection_ack');
        return false;
      }
      if (state.ids.has(id)) {
        state.close(CLOSE.duplicateId, `Subscriber for ${id} already exists`);
        return false;
      }
      if (state.ids.size >= options.maxSubscriptions) {
        sendError(id, [{
          message: `this connection already runs ${state.ids.size} subscriptions, the most one connection may hold; complete one or open another connection`,
          extensions: { code: 'TOO_MANY_SUBSCRIPTIONS', limit: options.maxSubscriptions },
        }]);
        return false;
      }
      const problems = options.check(payload as unknown as SubscribePayload);
      if (problems) {
        sendError(id, problems);
        return false;
      }
      state.ids.add(id);
      return true;
    }
    if (message.type === types.complete) {
      if (typeof message.id === 'string') state.ids.delete(message.id);
      return true;
    }
    return true;
  };

  const emit = socket.emit;
  socket.emit = function guardedEmit(this: GuardedSocket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'message' && !screen(args[0], args[1])) return true;
    return emit.call(this, event, ...args);
  };

  const send = socket.send;
  const nextPrefix = `{"type":"${types.next}"`;
  socket.send = function guardedSend(this: GuardedSocket, data: unknown, ...rest: unknown[]): void {
    if (typeof data === 'string') {
      if (data.startsWith('{"type":"error"') || data.startsWith('{"type":"complete"')) {
        const { id } = JSON.parse(data) as { id?: unknown };
        if (typeof id === 'string') state.ids.delete(id);
      } else if (data.startsWith(nextPrefix) && state.key) {
        // Mercurius waits for the send's callback before the subscription's next event: pacing holds the subscription, in order.
        void options.pace(state).then(() => send.call(this, data, ...rest), () => send.call(this, data, ...rest));
        return;
      }
    }
    send.call(this, data, ...rest);
  };
  return state;
}
