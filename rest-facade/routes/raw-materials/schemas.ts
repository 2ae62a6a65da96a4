import { Type, type TSchema } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { toDecimalString } from '../../../schema/scalars.ts';
import { DomainError } from '../../../src/domain-error.ts';
import { decimalToNumber } from '../../envelope.ts';

/** A GraphQL Decimal (exact string) as a JSON number, rounded half-up to 6 places. */
export function num(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : decimalToNumber(toDecimalString(value));
}
export const num0 = (value: string): number => num(value)!;

/** Nullable scalar as a JSON-schema type array (not anyOf: AJV's coercion would turn null into ""). */
export const NullableString = (description?: string) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) });
export const NullableNumber = (description?: string) => Type.Unsafe<number | null>({ type: ['number', 'null'], ...(description ? { description } : {}) });

export const VariantIdParams = Type.Object(
  { variantId: Type.String({ minLength: 1, maxLength: 255, description: 'Numeric platform variant id or VMAT-VAR-… id (no global ids).' }) },
  { additionalProperties: false },
);

export const LocationIdsQuery = Type.Object(
  {
    locationIds: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9]*$', description: 'A bare numeric location id (a gid://… form is 400).' }), {
      description: 'Repeatable (`locationIds=101&locationIds=102`). Omitted or empty (`locationIds=`) means every location; a scope that matches nothing reports 0.',
    })),
  },
  { additionalProperties: false },
);

/** The scope as GraphQL variables: empty values dropped, an empty list = every location. */
export function scopeVariable(query: Record<string, unknown>): string[] | null {
  const ids = ((query.locationIds as string[] | undefined) ?? []).filter((id) => id !== '');
  return ids.length === 0 ? null : ids;
}

/**
 * A JSON number as a Decimal variable, checked here so a bad value is 400 naming the field rather
 * than a GraphQL coercion failure.
 */
export function decimalVariable(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  let d: Decimal;
  try {
    d = new Decimal(text);
  } catch {
    throw DomainError.invalid(field, 'must be a number');
  }
  if (!d.isFinite() || d.decimalPlaces() > 6) throw DomainError.invalid(field, 'must be a number with at most 6 fractional digits');
  if (d.abs().gte('1e14')) throw DomainError.invalid(field, 'must be smaller than 10^14 in magnitude');
  return d.toFixed();
}

const num6 = (description?: string) => Type.Number(description ? { description } : {});
const nullableNum = (description?: string) => Type.Union([Type.Number(), Type.Null()], description ? { description } : {});
const nullableStr = (description?: string) => Type.Union([Type.String(), Type.Null()], description ? { description } : {});

const materialProperties = {
  variantId: Type.String({ description: 'Numeric platform variant id, or VMAT-VAR-<uuid> for a virtual material.' }),
  productId: Type.String({ description: 'VMAT-PROD-<uuid> for a virtual material.' }),
  inventoryItemId: Type.String({ description: 'VMAT-INV-<uuid> for a virtual material.' }),
  productName: Type.String(),
  variantName: nullableStr(),
  sku: nullableStr(),
  vendor: nullableStr(),
  unit: nullableStr('Unit label (kg, pcs, …).'),
  unitCost: nullableNum(),
  unitPrice: nullableNum(),
  inventoryQuantity: num6('Platform-linked: the cached platform total (cachedQuantity). Virtual: the sum of its per-location levels.'),
  isVirtual: Type.Boolean(),
  specifications: nullableStr(),
  imageUrl: nullableStr(),
  isNonEssentialMaterial: Type.Boolean({ description: 'Non-essential materials are ignored by buildable quantities.' }),
  weightValue: nullableNum(),
  weightUnitId: nullableStr(),
  productType: nullableStr(),
  productCategory: nullableStr(),
};

export const MaterialSchema = Type.Object(materialProperties, { additionalProperties: false, description: 'A raw material (platform-linked fields are mirrored from the platform variant).' });

export const MaterialListRowSchema = Type.Object(
  {
    ...materialProperties,
    bomUsageCount: Type.Integer({ minimum: 0, description: 'Number of BOMs whose own recipe lines name the material.' }),
    subAssemblyUsageCount: Type.Integer({ minimum: 0, description: 'Number of assembly bills whose own lines name the material.' }),
  },
  { additionalProperties: false },
);

/** The material fields of a stored operation (kept in sync with MaterialSchema by the toData mapping). */
export function toMaterial(m: Record<string, any>): Record<string, unknown> {
  return {
    variantId: m.variantId, productId: m.productId, inventoryItemId: m.inventoryItemId, productName: m.productName,
    variantName: m.variantName, sku: m.sku, vendor: m.vendor, unit: m.unit, unitCost: num(m.unitCost), unitPrice: num(m.unitPrice),
    inventoryQuantity: num0(m.inventoryQuantity), isVirtual: m.isVirtual, specifications: m.specifications, imageUrl: m.imageUrl,
    isNonEssentialMaterial: m.isNonEssentialMaterial, weightValue: num(m.weightValue), weightUnitId: m.weightUnitId,
    productType: m.productType, productCategory: m.productCategory,
  };
}

export function strictObject(properties: Record<string, TSchema>, description?: string) {
  return Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
}
