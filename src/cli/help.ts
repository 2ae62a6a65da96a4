// The help of `bomcore` and of each of its commands (`bomcore <command> --help`, `bomcore help <command>`).

const DATABASE = `Database: DATABASE_URL (PostgreSQL) or, when unset, embedded PGlite under BOMCORE_DATA_DIR (default ./.data).
The embedded database has one owner at a time (BOMCORE_DATA_DIR/bomcore.lock). While \`serve\` runs on it,
\`key\`, \`export\` and \`plan\` are done by the server (through BOMCORE_DATA_DIR/bomcore.sock, owner-only); \`load\`
and \`migrate\` refuse and name the server: stop it first, or use PostgreSQL for several processes.`;

const PROGRESS = `Progress goes to stderr: a bar on a terminal, a plain line every few seconds otherwise (CI=true, a pipe or a file).`;

export const MAIN_HELP = `bomcore — manufacturing and inventory service

Usage: bomcore <command> [options]

  serve                              run the HTTP server (HOST, PORT; migrates first; demo data on an empty embedded database)
  migrate                            apply pending database migrations
  load FILE                          validate FILE and replace its shop's data with it (one transaction)
  export --shop ID [--out FILE]      write a shop's dataset (stdout by default)
  plan --shop ID [--location L]... [--as-of YYYY-MM-DD] [--format json|csv]
                                     what to buy and make, where, by when and for whom (docs/planning.md)
  generate [--materials N] [--boms N] [--depth D] [--locations N]
           [--work-orders N] [--orders N] [--seed S] [--shop ID] [--out FILE]
                                     write a deterministic synthetic dataset (progress on stderr)
  key create --shop ID --scopes read|read,write [--name N] [--expires-in 30d] [--json]
  key list --shop ID [--json]
  key revoke ID
  webhook create --shop ID --url URL --topics a,b [--description D] [--json]
  webhook list --shop ID [--json]
  webhook delete ID --shop ID        a shop's webhook endpoints (docs/events.md); the secret is printed once
  shop connect --shop ID --domain X.myshopify.com (--client-id ID --client-secret-file F | --token-file F) [--webhook-url URL] [--no-sync]
  shop sync|reconcile|status|disconnect|retry-pushes --shop ID
                                     link a shop to its Shopify store, sync it, show or end the link
  print-schema [--subgraph] [--check [FILE]]
                                     print the GraphQL SDL (--check: are schema/*.graphql up to date?)
  print-openapi                      print the OpenAPI document

Run \`bomcore <command> --help\` for a command's options.

${DATABASE}`;

/** One help text per command: usage, what it does, its options, an example. */
export const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: bomcore serve [--workers N]

Runs the HTTP server: REST API under /api/v1, GraphQL at /graphql. Applies pending migrations first.
On an empty embedded database it loads the demo shop. On the embedded database it prints the demo
shop's read-write API key and curl examples; the key stays the same across restarts until revoked.
A busy PORT is reported before anything is loaded (exit code 1).

Options:
  --workers N   processes serving the port, one core each (also BOMCORE_WORKERS). Default: every core
                on PostgreSQL, 1 on the embedded database (which has one owner: more is refused).
                A worker that dies is replaced; rate-limit budgets stay one per key; the background
                passes run in one worker at a time; SIGTERM drains every worker
  -h, --help    show this help

Environment (see docs/ for every setting): HOST (default 127.0.0.1), PORT (default 3000), DATABASE_URL,
BOMCORE_DATA_DIR, LOG_LEVEL, CORS_ORIGINS (browser origins allowed, comma-separated or *; default off).

Examples:
  PORT=8080 bomcore serve
  DATABASE_URL=postgres://localhost/bomcore bomcore serve --workers 4

${DATABASE}`,

  migrate: `Usage: bomcore migrate

Applies the pending database migrations and says which (or that the database is up to date).

Options:
  -h, --help    show this help

${DATABASE}`,

  load: `Usage: bomcore load FILE

Validates the dataset FILE as a whole (every problem named by its JSON path; nothing is written if
there is one), then replaces its shop's data with it in one transaction. The file is streamed, so
large files load in little memory. Exit code 1 when the file is refused.

Options:
  -h, --help    show this help

Example:
  bomcore generate --materials 1000 --out shop.json && bomcore load shop.json

${PROGRESS}
${DATABASE}`,

  plan: `Usage: bomcore plan --shop ID [--location L]... [--as-of YYYY-MM-DD] [--format json|csv]

Plans a shop (docs/planning.md): its shortages and the make and buy suggestions that answer them, per
location, from one consistent snapshot. JSON (default) is one object with shopId, asOf,
buySuggestions, makeSuggestions, shortages and unlocated; numbers are exact JSON numbers. CSV is one
row per buy suggestion, with a header, for a spreadsheet or a supplier.

Options:
  --shop ID            the shop to plan (required)
  --location L         keep the rows of location L (repeat for several; default: every location)
  --as-of DATE         the plan's date, YYYY-MM-DD (default: today, UTC); \`late\` compares with it
  --format json|csv    the output (default json)
  -h, --help           show this help

${PROGRESS}

Example:
  bomcore plan --shop demo --as-of 2026-11-12 --format csv > buy.csv
`,
  export: `Usage: bomcore export --shop ID [--out FILE]

Writes a shop's data as a dataset file, in the format \`bomcore load\` reads (loading an export and
exporting again gives the same file).

Options:
  --shop ID     the shop to export (required)
  --out FILE    write to FILE (default: stdout)
  -h, --help    show this help

Example:
  bomcore export --shop demo --out demo.json

${PROGRESS}
${DATABASE}`,

  generate: `Usage: bomcore generate [options]

Writes a deterministic synthetic dataset (the same options and seed give the same bytes).

Options:
  --materials N     raw materials (default 200)
  --boms N          bills of materials (default 50)
  --depth D         nesting depth of the assembly bills (default 3)
  --locations N     locations, at least 1 (default 3)
  --work-orders N   work orders (default 40)
  --orders N        platform orders (default 40)
  --seed S          random seed (default 1)
  --shop ID         the shop id of the dataset
  --out FILE        write to FILE (default: stdout)
  -h, --help        show this help

Example:
  bomcore generate --materials 100000 --boms 5000 --seed 7 --out big.json

${PROGRESS}`,

  webhook: `Usage:
  bomcore webhook create --shop ID --url URL --topics a,b [--description D] [--json]
  bomcore webhook list --shop ID [--json]
  bomcore webhook delete ID --shop ID

Manages the webhook endpoints of a shop: bomcore POSTs the events of their topics to them, signed
(Standard Webhooks). create prints the signing secret once (--json: {"id": …, "secret": "whsec_…"}).
--topics takes topics of docs/events.md, comma-separated (an unknown one is refused, naming them all).
The shop must exist (as for \`key create\`). On the embedded database with \`serve\` running, the
server does it (through its admin socket).

A URL on a loopback, private or link-local address (a receiver on this machine) is refused unless
BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 is set where the work is done: on the server (\`bomcore serve\`),
which checks the URL when the command is sent to it and delivers every event; on PostgreSQL, on this
command too (it checks the URL itself) and on every server that delivers.

Options:
  --shop ID          the shop (must exist)
  --url URL          where events are POSTed (https in production; a private address needs
                     BOMCORE_WEBHOOKS_ALLOW_PRIVATE=1 on the server, above)
  --topics a,b       the topics it receives
  --description D    your note about it
  --json             print JSON
  -h, --help    show this help`,

  key: `Usage:
  bomcore key create --shop ID --scopes read|read,write [--name N] [--expires-in 30d] [--json]
  bomcore key list --shop ID [--json]
  bomcore key revoke ID

Manages the API keys of a shop. A key is printed once, when created; bomcore keeps only its hash.
Clients send it as \`Authorization: Bearer <key>\`. Changes take effect at once, on a running server too:
a revoked key is answered 401 "this API key was revoked".

Options of create:
  --shop ID          the shop the key reads and writes (required)
  --scopes S         read, or read,write (required)
  --name N           a label for the key list
  --expires-in T     lifetime: 30d, 12h, 45m or 90s (default: no expiry)
  --json             print {id, key, shopId, scopes} as JSON
Options of list:
  --shop ID          the shop (required)
  --json             print the keys as JSON
  -h, --help         show this help

Example:
  bomcore key create --shop demo --scopes read --name dashboard --expires-in 90d

${DATABASE}`,

  shop: `Usage:
  bomcore shop connect --shop ID --domain X.myshopify.com --client-id ID --client-secret-file F
                       [--webhook-url URL] [--api-version 2026-10] [--no-sync] [--json]
  bomcore shop connect --shop ID --domain X.myshopify.com --token-file F [--webhook-url URL] …
  bomcore shop sync --shop ID [--json]
  bomcore shop reconcile --shop ID [--json]
  bomcore shop status --shop ID [--json]
  bomcore shop disconnect --shop ID
  bomcore shop retry-pushes --shop ID

Links a shop to its Shopify store. With --client-id and --client-secret-file (an app of the
store's own organisation, made in the Dev Dashboard or with Shopify CLI and installed on the store)
connect gets a token by the client credentials grant; it lasts 24 hours and bomcore gets a new one
before it ends. With --token-file it uses a legacy admin-created custom app's token (shpat_…), which
never expires. (A store can also install bomcore from its install link: GET /shopify/install.)
connect reads the store and the token's access scopes and refuses, naming each, when one of
read_products, read_inventory, write_inventory, read_locations, read_orders is missing (and
write_orders when the shop writes order metafields). The token and client secret are stored encrypted with
BOMCORE_SECRET_KEY (64 hex digits; on the embedded database a 0600 key file in BOMCORE_DATA_DIR
is made when it is unset) and never printed, logged or exported. With --webhook-url it subscribes
the store's webhooks (inventory levels, products, locations, orders, app/uninstalled) to that URL,
which keeps the mirror current between syncs (set SHOPIFY_API_SECRET on the server: it checks
their signatures). Then it runs a full sync.
sync re-reads locations, products, variants, inventory levels and open orders (Shopify bulk
exports) into the shop's mirror; platform-linked materials take their names, SKUs, prices and
costs. reconcile runs one reconciliation pass now (bomcore serve runs one every
BOMCORE_SHOPIFY_RECONCILE_INTERVAL_S seconds, default 300): it re-reads from Shopify the products,
inventory levels and orders changed since the last pass or sync, writes what the mirror missed (a
webhook lost on the way) and reports it as drift. status shows the link, the last sync, the last
reconcile and its drift, the webhooks (their URL, and whether the store has uninstalled the app)
and the stock pushes still pending. disconnect deletes the token; the last
synced state stays. A stock push Shopify refuses for good (a deleted variant, a missing scope) is
stopped instead of retried forever; retry-pushes releases the stopped pushes once the cause is fixed.

Options:
  --shop ID            the bomcore shop (created by connect when it does not exist)
  --domain D           the store's myshopify.com domain
  --client-id ID       the app's client ID (Dev Dashboard: the app's Settings)
  --client-secret-file F  a file (mode 600) whose first line is the app's client secret
  --token-file F       a file (mode 600) whose first line is a legacy app's access token
  --webhook-url URL    where Shopify sends webhooks: https://<this server>/webhooks/shopify
  --api-version V      Admin API version (default 2026-10, the one bomcore is validated against)
  --no-sync            connect without the first sync
  --json               print the result as JSON
  -h, --help           show this help

BOMCORE_SHOPIFY_ENDPOINT replaces https://{domain}, for the Admin API and /admin/oauth (a proxy, or an emulator in tests).
${PROGRESS}

Example:
  bomcore shop connect --shop candles --domain candles.myshopify.com --client-id 3f1c… \
    --client-secret-file ./shopify-client.secret --webhook-url https://bomcore.example.com/webhooks/shopify

${DATABASE}`,

  'print-schema': `Usage: bomcore print-schema [--subgraph] [--check [FILE]]

Prints the GraphQL schema (SDL) of the service: the client schema, without federation internals
(schema/schema.graphql, for code generators and docs).

Options:
  --subgraph    the subgraph SDL a federation gateway composes instead (schema/subgraph.graphql,
                what \`_service { sdl }\` serves: @link and @key directives)
  --check       compare with FILE instead: says "up to date", or that it is out of date (exit
                code 1); without FILE, checks schema/schema.graphql and schema/subgraph.graphql
                (only the latter with --subgraph)
  -h, --help    show this help`,

  'print-openapi': `Usage: bomcore print-openapi

Prints the OpenAPI 3 document of the REST API (the one served at /api/v1/openapi.json).

Options:
  -h, --help    show this help`,
};

/** True when the arguments ask for help (`--help` or `-h` before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
