/** Resolvers by GraphQL type name, then field name; a type listed here serves only the fields it names. */
export type Resolvers = Record<string, Record<string, (source: any, args: any, ctx: any, info: any) => unknown>>;
