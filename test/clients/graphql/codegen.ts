// codegen.ts: GraphQL Code Generator for a bomcore client (`npx graphql-codegen`).
// schema.graphql is bomcore's client schema: curl -s http://127.0.0.1:3000/graphql/schema.graphql -o schema.graphql
const config = {
  schema: 'schema.graphql',
  documents: 'src/**/*.graphql',
  config: {
    // Every scalar needs a type (no silent `any`): bomcore's own three travel as strings.
    strictScalars: true,
    scalars: {
      Decimal: 'string', // exact quantities and money, e.g. "0.4"; never a JS number
      DateTime: 'string', // ISO 8601 with milliseconds, e.g. "2026-11-02T10:00:00.000Z"
      Date: 'string', // a calendar day, YYYY-MM-DD (planning's dates), e.g. "2026-11-12"
    },
    enumsAsTypes: true, // enums as string unions (no runtime code)
    useTypeImports: true,
  },
  generates: {
    'src/generated/schema-types.ts': { plugins: ['typescript'] },
    'src/generated/operations.ts': { plugins: ['typescript-operations'] },
  },
};

export default config;
