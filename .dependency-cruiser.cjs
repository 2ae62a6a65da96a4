// Layer rules of bomcore (docs/architecture.md, "Layers"), checked by `npm run lint:layers` in CI and
// by test/codebase/architecture.test.ts. Each `forbidden` rule is one "never"; a violation names the rule.
//
// Layers, lowest first, each a folder: the kernel (src/kernel: config, shop context, limits, errors,
// exact numbers, jobs, clocks and the platform port's types) → src/db → src/platform (the platform
// adapters) → the domain modules (src/modules/<feature>/) → schema/ (GraphQL) and src/http/ (Fastify
// hooks) → rest-facade/ (REST over GraphQL) → the shell (src/app: app, composition root, database)
// and the CLI (src/cli/). src/dataset is a tool over the modules, used by the shell and the CLI.

const KERNEL = '^src/kernel/';
const SHELL = '^src/app/';

/**
 * Domain modules, lowest tier first. A module may import modules of lower tiers only, never one of
 * its own tier or above. `src/modules/entities.ts` (the entity list for the ORM) is no module: it
 * may import every module's entities.
 */
const MODULE_TIERS = [
  ['shops', 'idempotency', 'locations', 'events'], // a tenant's settings, idempotency keys, locations through the port; events and webhooks (every writer records into it)
  ['auth', 'people', 'boms'], // API keys (of a shop); assignees, flows; the catalogue: BOMs, assembly bills, cost roll-up
  // Stock below materials: materials' level writes (inventory batches, the PATCH of a single level)
  // go through the stock ledger, while stock needs of materials only location helpers and a recipes
  // query, which sit lower (locations, boms).
  ['stock'], // the ledger, levels, live levels, holders, the platform-push outbox (reads boms)
  ['materials'], // raw materials: their writes go through the stock ledger
  ['orders'], // order breakdowns (recipes × platform orders)
  ['work-orders'], // work orders, build runs: consume stock, allocate materials, name people
  ['planning'], // net requirements, make and buy suggestions, where-used, what-if: reads every module through its for-planning.ts, writes nothing
];

const moduleOrderRules = MODULE_TIERS.flatMap((tier, index) => {
  const above = MODULE_TIERS.slice(index).flat();
  return tier.map((module) => {
    const higher = above.filter((other) => other !== module);
    return {
      name: `module-order-${module}`,
      severity: 'error',
      comment:
        `src/modules/${module} is in tier ${index} of the module order (.dependency-cruiser.cjs, MODULE_TIERS): it never ` +
        `imports ${higher.join(', ')}. Lower modules are used by higher ones, never the other way, so a module can ` +
        'be read, tested and changed knowing only what is below it. Pass what a lower module needs in (a function, ' +
        'an SQL fragment) or move the shared piece down.',
      from: { path: `^src/modules/${module}/` },
      to: { path: `^src/modules/(${higher.join('|')})/` },
    };
  });
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import circle anywhere: a file that imports itself through others cannot be read, tested or loaded ' +
        'without them. Move what both sides need (a type, a helper) into a file of its own that both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-imports-only-kernel',
      severity: 'error',
      comment:
        'src/kernel is the floor every layer stands on (shop context, config, limits, errors, exact numbers, ' +
        'jobs, clocks, the platform port\'s types): it imports nothing of the project outside src/kernel, with no ' +
        'exception. Whatever it needs (a gateway, the entity list) is handed to it by the shell (src/app).',
      from: { path: KERNEL },
      to: { path: '^(src|schema|rest-facade|migrations|bench|bin|test)/', pathNot: KERNEL },
    },
    {
      name: 'db-not-upper',
      severity: 'error',
      comment: 'src/db (the ORM, typed SQL, keyset pages) stands on the kernel and the migrations only: it knows no module, adapter or surface; the shell hands it the entity list.',
      from: { path: '^src/db/' },
      to: { path: '^(src|schema|rest-facade)/', pathNot: [KERNEL, '^src/db/'] },
    },
    {
      name: 'platform-not-modules',
      severity: 'error',
      comment:
        'The platform adapters (src/platform: the local store, Shopify) implement the port of the kernel ' +
        '(src/kernel/platform-port) and report the platform as it is; they import no module. What a module adds ' +
        'to the platform\'s answer (live levels with pending pushes: src/modules/stock/live-levels.ts) the shell wires around them.',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'infrastructure-not-upper',
      severity: 'error',
      comment:
        'src/db and src/platform are infrastructure: they never import src/http, schema, rest-facade, src/cli, ' +
        'src/dataset or the shell (src/app).',
      from: { path: '^src/(db|platform)/' },
      to: { path: ['^src/(http|cli|dataset)/', '^schema/', '^rest-facade/', SHELL] },
    },
    {
      name: 'modules-not-adapters',
      severity: 'error',
      comment:
        'Domain modules serve every surface alike (GraphQL, REST, the CLI): they never import src/http, schema, ' +
        'rest-facade, src/cli or the shell. What they need from a request (scopes, identity) reaches them through ' +
        'the ShopContext (src/kernel/shop-context.ts).',
      from: { path: '^src/modules/' },
      to: { path: ['^src/(http|cli)/', '^schema/', '^rest-facade/', SHELL] },
    },
    {
      name: 'rest-facade-not-modules-or-db',
      severity: 'error',
      comment:
        'The REST facade runs stored GraphQL operations: it reaches the domain through the schema only, so ' +
        'REST and GraphQL cannot drift apart. It never imports src/modules or src/db.',
      from: { path: '^rest-facade/' },
      to: { path: '^src/(modules|db)/' },
    },
    {
      name: 'schema-not-http',
      severity: 'error',
      comment:
        'The GraphQL schema is transport-free (the REST facade runs it in-process, tests call it directly): ' +
        'it never imports src/http. Shared pieces (operation cost, limits) live in the kernel.',
      from: { path: '^schema/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-not-schema',
      severity: 'error',
      comment:
        'The HTTP hooks get the schema and its input check from the shell (src/app/app.ts): src/http ' +
        'never imports schema, so either side can change without the other.',
      from: { path: '^src/http/' },
      to: { path: '^schema/' },
    },
    {
      name: 'adapters-not-facade-or-shell',
      severity: 'error',
      comment:
        'schema and src/http are below the REST facade and the shell: they never import rest-facade, src/cli or src/app.',
      from: { path: '^(schema|src/http)/' },
      to: { path: ['^rest-facade/', '^src/cli/', SHELL] },
    },
    {
      name: 'facade-not-shell',
      severity: 'error',
      comment: 'The REST facade is mounted by the shell: it never imports src/cli or src/app.',
      from: { path: '^rest-facade/' },
      to: { path: ['^src/cli/', SHELL] },
    },
    {
      name: 'shell-not-cli',
      severity: 'error',
      comment: 'The shell (src/app) builds the app and wires adapters to ports; the CLI drives it, never the other way.',
      from: { path: SHELL },
      to: { path: '^src/cli/' },
    },
    {
      name: 'tables-are-private',
      severity: 'error',
      comment:
        'A module\'s query builder (src/modules/<module>/tables.ts, typed by its own entities) is its own: another ' +
        'module never imports it, so each table is read and written only by its owner. Another module asks the ' +
        'owner for a read or an SQL fragment it exports.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/tables[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'tables-own-entities',
      severity: 'error',
      comment: 'A module\'s query builder is typed by the entities the module declares, never by another module\'s.',
      from: { path: '^src/modules/([^/]+)/tables[.]ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/$1/' },
    },
    ...moduleOrderRules,
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment:
        'Every import resolves to a file or a package: an import the cruiser cannot resolve is a dependency ' +
        'no rule above can see (a wrong path, a package missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'dataset-is-a-tool',
      severity: 'error',
      comment:
        'src/dataset (load, export, generate, check a shop\'s dataset file) is a tool over every module, used by ' +
        'the CLI and the shell: no module, schema, HTTP hook, facade route or lower layer imports it, so a domain ' +
        'change never has to go through the file format.',
      from: { path: ['^src/modules/', '^schema/', '^src/http/', '^rest-facade/', KERNEL, '^src/(db|platform)/'] },
      to: { path: '^src/dataset/' },
    },
    {
      name: 'dataset-not-adapters',
      severity: 'error',
      comment: 'The dataset tool works on the domain directly: it never imports the HTTP layer, the schema, the facade, the CLI or the shell.',
      from: { path: '^src/dataset/' },
      to: { path: ['^src/(http|cli)/', '^schema/', '^rest-facade/', SHELL] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules/', '[.]d[.]ts$'] },
    // Type-only imports count: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    // TypeScript imports carry `.ts` extensions (Node strips the types): resolve them as tsc does.
    tsConfig: { fileName: 'tsconfig.json' },
    // Packages resolve through their `exports` as Node's ESM loader does (ruru/server is exports-only).
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
