import { getNamedType, getNullableType, isListType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../schema/index.ts';
import { inputLimitsOf, schemaInputs } from '../../schema/input-limits.ts';
import { LIST_LIMITS, STRING_LIMITS } from '../../src/kernel/limits.ts';
import { HEADER_LIMITS } from '../../src/modules/work-orders/header-fields.ts';

// Rule (issue 17, item 13): a limit is stated once, in src/kernel/limits.ts, and every place that states or
// checks it reads it from there. A GraphQL description that writes a maximum of its own ("at most
// 500", "up to 500 characters", "1–500 characters") states the number the checker enforces, never
// another one: the schema said 500 for syncOrderMaterialRequirements(orderIds:) and for a document
// or work-order name while 100 and 255 were enforced.

/** The numbers a description states as a maximum, leaving out the `Limits: …` sentence the checker appends. */
function statedMaxima(description: string): number[] {
  const own = description.replace(/Limits: [^.]*\./, '');
  return [...own.matchAll(/(?:up to|at most|1–)\s*([\d,]+)/gi)].map((m) => Number(m[1]!.replaceAll(',', '')));
}

/** Formats stricter than the length limit, checked by the service (a client-chosen id: 1–128 characters of [A-Za-z0-9._:-]). */
const FORMAT_RULES: Record<string, number> = { 'Mutation.createAssignee.assigneeId': 128 };

describe('every maximum a GraphQL argument or input field states is the one enforced (src/kernel/limits.ts)', () => {
  it('no description states a number other than its enforced maxLength or maxItems', () => {
    const wrong: string[] = [];
    let stated = 0;
    for (const { coordinate, input } of schemaInputs(getSchema())) {
      // Text and lists: numbers (page sizes, decimals) have ranges of their own, not these limits.
      if (!isListType(getNullableType(input.type)) && !['String', 'ID'].includes(getNamedType(input.type).name)) continue;
      const limits = inputLimitsOf(input);
      for (const n of statedMaxima(input.description ?? '')) {
        stated++;
        if (FORMAT_RULES[coordinate] === n) continue;
        if (n !== limits.maxLength && n !== limits.maxItems) wrong.push(`${coordinate}: states ${n}, enforces ${JSON.stringify(limits)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(stated).toBeGreaterThan(10);
  });

  it('syncOrderMaterialRequirements(orderIds:) takes LIST_LIMITS.ids; a document name and a work-order name STRING_LIMITS.name', () => {
    const byCoordinate = new Map([...schemaInputs(getSchema())].map(({ coordinate, input }) => [coordinate, input]));
    expect(inputLimitsOf(byCoordinate.get('Mutation.syncOrderMaterialRequirements.orderIds')!).maxItems).toBe(LIST_LIMITS.ids);
    expect(inputLimitsOf(byCoordinate.get('Mutation.addWorkOrderDocument.name')!).maxLength).toBe(STRING_LIMITS.name);
    expect(inputLimitsOf(byCoordinate.get('CreateWorkOrderInput.name')!).maxLength).toBe(STRING_LIMITS.name);
    // The service's own check of a header edit reads the same number.
    expect(HEADER_LIMITS.name).toBe(STRING_LIMITS.name);
  });
});
