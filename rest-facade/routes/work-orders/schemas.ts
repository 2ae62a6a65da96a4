import { Type } from '@sinclair/typebox';
import { strictObject as obj } from '../../schema-helpers.ts';
import { STRING_LIMITS } from '../../../src/kernel/limits.ts';
import { under, type DataOverrides } from '../../data-overrides.ts';

export { under };

export { obj };

export const WorkOrderIdParams = obj({ id: Type.String({ minLength: 1, maxLength: STRING_LIMITS.id, description: 'The work order id (`wo_<uuid>`).' }) });

// What REST says of work-order data beyond the GraphQL schema (rest-facade/derive-schema.ts), per shared part.
/** dueDate is a calendar date (a GraphQL String). */
export const HEADER_OVERRIDES: DataOverrides = { dueDate: { format: 'date' } };
/** A warning sends only the details that apply to it. */
export const WARNING_OVERRIDES: DataOverrides = {
  '': { title: 'WorkOrderWarning' },
  ...Object.fromEntries(['variantId', 'itemId', 'locationId', 'quantity', 'count'].map((f) => [f, { optional: true }])),
};
export const BUILD_RUN_OVERRIDES: DataOverrides = { '': { title: 'BuildRun' }, ...under('warnings', WARNING_OVERRIDES) };
/** The material plan's parts (the whole read and GET …/material-plan). */
export const PLAN_OVERRIDES: DataOverrides = {
  materials: { title: 'WorkOrderMaterial' },
  contributions: { title: 'WorkOrderContribution' },
  consumptionPlan: { title: 'ConsumptionPlanRow' },
  cost: { title: 'WorkOrderCost' },
};

export const ExpectedUpdatedAt = Type.String({ format: 'date-time', maxLength: STRING_LIMITS.date, description: 'The `updatedAt` last read (required): a stale value is 409 and nothing is written.' });
