import { GraphQLError, Kind } from 'graphql';
import type { FieldError } from '../src/kernel/domain-error.ts';
import { parseDecimalInput, toDecimalString } from '../src/kernel/decimals.ts';
import { builder } from './builder.ts';

/** Inputs may be strings or numbers: the same check as every REST decimal field. */
function parseDecimal(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new GraphQLError('Decimal must be a string or number');
  const errors: FieldError[] = [];
  const parsed = parseDecimalInput(String(value), 'Decimal', errors);
  if (!parsed) throw new GraphQLError(`Decimal ${errors[0]!.message}`);
  return parsed.toFixed();
}

builder.scalarType('Decimal', {
  description: 'An exact decimal number with at most 6 fractional digits, written as a string.',
  serialize: (value) => toDecimalString(value),
  parseValue: parseDecimal,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return parseDecimal(ast.value);
    throw new GraphQLError('Decimal literal must be a string or number');
  },
});

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with milliseconds in UTC.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(value).toISOString()),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 timestamp');
    return date;
  },
});

/** A real calendar day written YYYY-MM-DD (the plan's dates), or a GraphQL error. */
function parseDay(value: unknown): string {
  const text = String(value);
  const time = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00.000Z`) : Number.NaN;
  if (!Number.isFinite(time) || new Date(time).toISOString().slice(0, 10) !== text) throw new GraphQLError('Date must be a calendar day written YYYY-MM-DD');
  return text;
}

builder.scalarType('Date', {
  description: 'A calendar day (UTC), written YYYY-MM-DD.',
  serialize: (value) => String(value),
  parseValue: parseDay,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING) return parseDay(ast.value);
    throw new GraphQLError('Date literal must be a string YYYY-MM-DD');
  },
});
