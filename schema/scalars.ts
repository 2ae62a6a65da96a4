import { Decimal as DecimalJs } from 'decimal.js';
import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.ts';

/**
 * Exact decimal: serialised as a string (never a float) with at most 6 fractional digits, rounded
 * half-up. Inputs may be strings or numbers with at most 6 fractional digits.
 */
export function toDecimalString(value: string | number | DecimalJs): string {
  return new DecimalJs(value).toDecimalPlaces(6, DecimalJs.ROUND_HALF_UP).toFixed();
}

function parseDecimal(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new GraphQLError('Decimal must be a string or number');
  let d: DecimalJs;
  try {
    d = new DecimalJs(value);
  } catch {
    throw new GraphQLError(`"${String(value)}" is not a decimal`);
  }
  if (!d.isFinite() || d.decimalPlaces() > 6) throw new GraphQLError('Decimal takes at most 6 fractional digits');
  return d.toFixed();
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
