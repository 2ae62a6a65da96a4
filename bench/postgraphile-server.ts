// PostGraphile 5 (bench-only comparison), its own process: the Amber preset with @dataplan/pg over
// the `pg` adaptor, against the benchmark database. bomcore declares no foreign keys (docs/
// architecture.md), so the relations the deep BOM read follows are given as smart tags (virtual
// foreign keys); everything else is PostGraphile's auto-generated schema.
// Usage: DATABASE_URL=… PORT=… node bench/postgraphile-server.ts [--print-schema]
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { printSchema } from 'postgraphile/graphql';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';

const fk = (columns: string, target: string, field: string, foreignField: string) =>
  `(${columns}) references ${target}|@fieldName ${field}|@foreignFieldName ${foreignField}`;

const relations = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      recipe_lines: {
        tags: {
          foreignKey: [
            fk('shop_id, owner_id', 'boms (shop_id, bom_id)', 'ownerBom', 'lines'),
            fk('shop_id, owner_id', 'assembly_bills (shop_id, assembly_id)', 'ownerAssembly', 'lines'),
            fk('shop_id, node_id', 'assembly_bills (shop_id, assembly_id)', 'assembly', 'usedInLines'),
            fk('shop_id, node_id', 'materials (shop_id, variant_id)', 'material', 'recipeLines'),
            fk('shop_id, node_id', 'cost_factors (shop_id, cost_factor_id)', 'costFactor', 'recipeLines'),
          ],
        },
      },
      boms: { tags: { foreignKey: fk('shop_id, variant_id', 'platform_variants (shop_id, variant_id)', 'variant', 'boms') } },
    },
  },
});

// JIT off as in bomcore's and the floor's pools, so all three sides run the same server settings.
const databaseUrl = new URL(process.env.DATABASE_URL!);
databaseUrl.searchParams.set('options', '-c jit=off');

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset],
  plugins: [relations],
  pgServices: [makePgService({ connectionString: databaseUrl.toString(), schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
if (process.argv.includes('--print-schema')) {
  process.stdout.write(printSchema(await pgl.getSchema()));
  await pgl.release();
} else {
  const serv = pgl.createServ(grafserv);
  // createHandler (not addTo): this server needs no websockets, and it answers /healthz itself.
  const handler = serv.createHandler();
  const server = createServer((request, response) => {
    if (request.url === '/healthz') response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    else handler(request, response);
  });
  await pgl.getSchema();
  server.listen(Number(process.env.PORT ?? 3200), '127.0.0.1');
  const close = () => server.close(() => void Promise.resolve(pgl.release()).then(() => process.exit(0)));
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
}
