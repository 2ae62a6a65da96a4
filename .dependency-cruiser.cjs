// Layer rules of bomcore (docs/architecture.md, "Layers"), checked by `npm run lint:layers` in CI and
// by test/codebase/architecture.test.ts. Each `forbidden` rule is one "never"; a violation names the rule.
//
// Layers, lowest first: the kernel (src/*.ts: config, shop context, limits, errors…), src/db,
// src/numbers, src/jobs, src/platform (the platform port and its adapters) → the domain modules
// (src/modules/<module>/) → schema/ (GraphQL) and src/http/ (Fastify hooks) → rest-facade/ (REST over
// GraphQL) → the composition root (src/app.ts, src/composition.ts) and the CLI (src/cli/).

/** The kernel: files directly under src/, except the composition root. */
const KERNEL = '^src/[^/]+[.]ts$';
const COMPOSITION_ROOT = '^src/(app|composition)[.]ts$';

/**
 * Domain modules, lowest tier first. A module may import modules of lower tiers only, never one of
 * its own tier or above. `src/modules/entities.ts` (the entity list for the ORM) is no module: it
 * may import every module's entities.
 */
const MODULE_TIERS = [
  ['shops', 'idempotency', 'platform', 'events'], // a tenant's settings, idempotency keys, locations through the port; events and webhooks (every writer records into it)
  ['auth', 'people', 'recipes'], // API keys (of a shop); assignees, flows; the catalogue's recipes and cost roll-up
  // Stock below materials: materials' level writes (inventory batches, the PATCH of a single level)
  // go through the stock ledger, while stock needs of materials only location helpers and a recipes
  // query, which sit lower (platform, recipes).
  ['stock'], // the ledger, levels, holders, the platform-push outbox (reads recipes)
  ['materials'], // raw materials: their writes go through the stock ledger
  ['orders'], // order breakdowns (recipes × platform orders)
  ['work-orders'], // work orders, build runs: consume stock, allocate materials, name people
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
      name: 'rest-facade-not-modules-or-db',
      severity: 'error',
      comment:
        'The REST facade runs stored GraphQL operations: it reaches the domain through the schema only, so ' +
        'REST and GraphQL cannot drift apart. It never imports src/modules or src/db.',
      from: { path: '^rest-facade/' },
      to: { path: '^src/(modules|db)/' },
    },
    {
      name: 'db-not-modules',
      severity: 'error',
      comment: 'The database layer knows no module: it is handed the entity list (src/modules/entities.ts via src/database.ts).',
      from: { path: '^src/db/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'modules-not-adapters',
      severity: 'error',
      comment:
        'Domain modules serve every surface alike (GraphQL, REST, the CLI): they never import src/http, schema, ' +
        'rest-facade, src/cli or the composition root. What they need from a request (scopes, identity) reaches ' +
        'them through the ShopContext (src/shop-context.ts).',
      from: { path: '^src/modules/' },
      to: { path: ['^src/(http|cli)/', '^schema/', '^rest-facade/', COMPOSITION_ROOT] },
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
        'The HTTP hooks get the schema and its input check from the composition root (src/app.ts): src/http ' +
        'never imports schema, so either side can change without the other.',
      from: { path: '^src/http/' },
      to: { path: '^schema/' },
    },
    {
      name: 'kernel-not-http',
      severity: 'error',
      comment:
        'The kernel (src/*.ts but the composition root) is below every adapter: it never imports src/http. ' +
        'Values HTTP and the kernel share (scopes, config parsers) live in the kernel.',
      from: { path: KERNEL, pathNot: COMPOSITION_ROOT },
      to: { path: '^src/http/' },
    },
    {
      name: 'kernel-not-upper',
      severity: 'error',
      comment:
        'The kernel never imports the layers built on it: schema, rest-facade, src/cli or the composition root ' +
        '(src/app.ts, src/composition.ts).',
      from: { path: KERNEL, pathNot: COMPOSITION_ROOT },
      to: { path: ['^schema/', '^rest-facade/', '^src/cli/', COMPOSITION_ROOT] },
    },
    {
      name: 'kernel-not-modules',
      severity: 'error',
      comment:
        'The kernel is below the domain modules: it never imports src/modules. The one exception is ' +
        'src/database.ts, which opens the ORM with the entity list (next rule).',
      from: { path: KERNEL, pathNot: [COMPOSITION_ROOT, '^src/database[.]ts$'] },
      to: { path: '^src/modules/' },
    },
    {
      name: 'database-only-entity-list',
      severity: 'error',
      comment:
        'src/database.ts opens the ORM with every entity registered, so it imports the entity list ' +
        '(src/modules/entities.ts), and nothing else of the modules.',
      from: { path: '^src/database[.]ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/entities[.]ts$' },
    },
    {
      name: 'kernel-knows-only-the-port',
      severity: 'error',
      comment:
        'The kernel builds no concrete platform gateway: the shop context knows the port (src/platform/gateway.ts) ' +
        'and is handed a gateway factory by the composition root (src/composition.ts).',
      from: { path: KERNEL, pathNot: COMPOSITION_ROOT },
      to: { path: '^src/platform/', pathNot: '^src/platform/gateway[.]ts$' },
    },
    {
      name: 'platform-not-modules',
      severity: 'error',
      comment:
        'The platform port and its adapters (src/platform) are below the modules: what they need of one (the ' +
        'outbox reader of the stock module) is an interface declared here and wired by the composition root.',
      from: { path: '^src/platform/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'infrastructure-not-upper',
      severity: 'error',
      comment:
        'src/db, src/numbers, src/jobs and src/platform are infrastructure: they never import src/http, schema, ' +
        'rest-facade, src/cli or the composition root.',
      from: { path: '^src/(db|numbers|jobs|platform)/' },
      to: { path: ['^src/(http|cli)/', '^schema/', '^rest-facade/', COMPOSITION_ROOT] },
    },
    {
      name: 'adapters-not-facade-or-root',
      severity: 'error',
      comment:
        'schema and src/http are below the REST facade and the composition root: they never import rest-facade, ' +
        'src/cli, src/app.ts or src/composition.ts.',
      from: { path: '^(schema|src/http)/' },
      to: { path: ['^rest-facade/', '^src/cli/', COMPOSITION_ROOT] },
    },
    {
      name: 'facade-not-root',
      severity: 'error',
      comment: 'The REST facade is mounted by the composition root: it never imports src/cli, src/app.ts or src/composition.ts.',
      from: { path: '^rest-facade/' },
      to: { path: ['^src/cli/', COMPOSITION_ROOT] },
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
        'the CLI and the composition root: no module, schema, HTTP hook, facade route or kernel file imports it, ' +
        'so a domain change never has to go through the file format.',
      from: { path: ['^src/modules/', '^schema/', '^src/http/', '^rest-facade/', KERNEL, '^src/(db|numbers|jobs|platform)/'], pathNot: COMPOSITION_ROOT },
      to: { path: '^src/dataset/' },
    },
    {
      name: 'dataset-not-adapters',
      severity: 'error',
      comment: 'The dataset tool works on the domain directly: it never imports the HTTP layer, the schema, the facade or the CLI.',
      from: { path: '^src/dataset/' },
      to: { path: ['^src/(http|cli)/', '^schema/', '^rest-facade/', COMPOSITION_ROOT] },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'No import cycle leaves a module: a cycle through two modules means neither can be understood (or ' +
        'loaded) without the other. Cycles inside one module are its own business.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { circular: true, via: { pathNot: '^src/modules/$1/' } },
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
