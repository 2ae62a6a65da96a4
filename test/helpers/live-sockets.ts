import { createClient, type Client } from 'graphql-ws';

// Subscription clients of the tests: the official graphql-ws client, and a raw WebSocket that sends
// the protocol's messages by hand (what a broken or hostile client sends).

export interface Subscription {
  received: any[];
  /** The next event (waits for it). */
  next(): Promise<any>;
  /** Resolves with what the client reported as the subscription's error (a CloseEvent when the socket closed). */
  failure: Promise<any>;
}

/** Subscribes through `client`; resolves once the server has had `settleMs` to register it (graphql-ws acknowledges no subscription). */
export async function subscribe(client: Client, query: string, variables: Record<string, unknown> = {}, settleMs = 300): Promise<Subscription> {
  const received: any[] = [];
  const waiting: ((value: any) => void)[] = [];
  let fail!: (error: unknown) => void;
  const failure = new Promise<unknown>((resolve) => (fail = resolve));
  client.subscribe({ query, variables }, {
    next: (value) => {
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else received.push(value);
    },
    error: (error) => fail(error),
    complete: () => undefined,
  });
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  // A subscription gone silent fails the test in 10 s, saying so, rather than at the test's timeout.
  const next = () => (received.length > 0 ? Promise.resolve(received.shift()) : new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no event within 10 s: the subscription went silent')), 10_000);
    waiting.push((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  }));
  return { received, failure, next };
}

/** A graphql-ws client of `url` with `authorization` in its connection_init; no retries. */
export function wsClient(url: string, authorization: string, clients: Client[]): Client {
  const client = createClient({ url, connectionParams: { authorization }, retryAttempts: 0, lazy: true });
  clients.push(client);
  return client;
}

export interface RawSocket {
  socket: WebSocket;
  /** Every message received, parsed. */
  messages: any[];
  /** The next message of `type` not yet taken (waits for it). */
  take(type: string): Promise<any>;
  send(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** A WebSocket speaking graphql-transport-ws by hand. */
export async function rawSocket(url: string, protocol = 'graphql-transport-ws'): Promise<RawSocket> {
  const socket = new WebSocket(url, protocol);
  const messages: any[] = [];
  const taken = new Set<any>();
  const waiters: { type: string; resolve: (message: any) => void }[] = [];
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data));
    messages.push(message);
    const waiter = waiters.find((w) => w.type === message.type);
    if (waiter) {
      waiters.splice(waiters.indexOf(waiter), 1);
      taken.add(message);
      waiter.resolve(message);
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })));
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  });
  return {
    socket, messages, closed,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    take: (type) => {
      const ready = messages.find((m) => m.type === type && !taken.has(m));
      if (ready) {
        taken.add(ready);
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiters.push({ type, resolve }));
    },
  };
}

/** A raw socket past connection_ack with `authorization`. */
export async function acknowledgedSocket(url: string, authorization: string): Promise<RawSocket> {
  const raw = await rawSocket(url);
  raw.send({ type: 'connection_init', payload: { authorization } });
  await raw.take('connection_ack');
  return raw;
}
