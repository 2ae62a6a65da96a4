import type { FastifyInstance } from 'fastify';
import { sendProblem } from '../errors/problem.ts';

// GraphiQL, moved out of graphql.ts to keep that file to the endpoint itself. Its queries and
// mutations go to /graphql with the key of the headers editor; subscriptions are another matter
// (docs/events.md, "Subscriptions").

export const GRAPHIQL_PATH = '/graphiql';
const GRAPHIQL_STATIC = '/graphiql/static/';
/** The GraphQL endpoint the page talks to (src/http/graphql/graphql.ts's GRAPHQL_PATH; not imported: that file imports this one). */
const ENDPOINT = '/graphql';

/**
 * GraphiQL (Ruru's build of it) at /graphiql, every asset served by this server: no CDN, so it works
 * offline and behind a strict egress policy. The page holds no key; the user types theirs in the
 * headers editor.
 */
export async function registerGraphiql(app: FastifyInstance): Promise<void> {
  // Typed by hand: ruru's own types reach into GraphiQL's React props, which this project does not carry.
  let ruru: {
    ruruHTML: (config: { endpoint: string; staticPath: string; clientConfig: Record<string, unknown> }) => string;
    getStaticFile: typeof import('ruru/static').getStaticFile;
  };
  try {
    const [server, assets] = await Promise.all([import('ruru/server'), import('ruru/static')]);
    ruru = { ruruHTML: server.ruruHTML as unknown as typeof ruru.ruruHTML, getStaticFile: assets.getStaticFile };
  } catch (error) {
    app.log.warn({ err: error }, 'GraphiQL is on but its assets (the ruru package) are not installed; /graphiql is not served');
    return;
  }
  const page = ruru.ruruHTML({
    endpoint: ENDPOINT,
    staticPath: GRAPHIQL_STATIC,
    clientConfig: {
      isHeadersEditorEnabled: true,
      initialHeaders: JSON.stringify({ Authorization: 'Bearer <your API key>' }, null, 2),
      initialQuery: '{\n  locations {\n    locationId\n    name\n  }\n}\n',
    },
  });
  app.get(GRAPHIQL_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get(`${GRAPHIQL_STATIC}*`, { schema: { hide: true } }, async (request, reply) => {
    const file = await ruru.getStaticFile({
      staticPath: GRAPHIQL_STATIC, urlPath: request.url, acceptEncoding: request.headers['accept-encoding'], disallowDevAssets: true,
    });
    if (!file) return sendProblem(request, reply, { code: 'NOT_FOUND', detail: `no GraphiQL asset ${request.url.split('?')[0]}` });
    return reply.headers(file.headers).send(file.content);
  });
}
