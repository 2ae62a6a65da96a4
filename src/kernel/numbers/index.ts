// The one home of exact arithmetic: quantities, money, recipe needs and buildable bounds.
export { Exact, ONE, ZERO, decimalParts, exact, fromParts, pow10, type DecimalParts, type ExactInput } from './exact.ts';
export { ceilDiv, divideToPlaces, floorDiv } from './division.ts';
