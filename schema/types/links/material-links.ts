import { AdjustmentRef } from '../graph/adjustments.ts';
import { LimitingComponentRef } from '../boms/buildable.ts';
import { MaterialNeedChangeRef } from '../boms/location-rules.ts';
import { PickRef, PlanConsumptionRowRef, PlanContributionRef, PlanMaterialRef, WarningRef } from '../work-orders/work-order.ts';
import { linkField } from './link-field.ts';

// Every `variantId` of a material, and every item or node id that is a material or an assembly
// bill's pre-assembled shelf, leads to the `RawMaterial` or `AssemblyBill` it names.

const MATERIAL = 'The raw material of `variantId` (null if it no longer exists).';

linkField(PlanMaterialRef, 'material', 'RawMaterial', MATERIAL, (m) => m.variantId);
linkField(PlanContributionRef, 'material', 'RawMaterial', MATERIAL, (c) => c.variantId);
linkField(MaterialNeedChangeRef, 'material', 'RawMaterial', MATERIAL, (c) => c.variantId);
linkField(AdjustmentRef, 'material', 'RawMaterial', MATERIAL, (a) => a.variantId);
linkField(WarningRef, 'material', 'RawMaterial', 'The raw material the warning is about; null when it names none.', (w) => w.variantId);

// `stock: material` rows name a material by itemId; `stock: preassembled` rows an assembly bill's shelf.
for (const [ref, what] of [[PickRef, 'picked'], [PlanConsumptionRowRef, 'to take']] as const) {
  linkField<{ stock: string; itemId: string }>(ref, 'material', 'RawMaterial', `The raw material ${what} (stock \`material\`); null for a pre-assembled shelf.`,
    (r) => (r.stock === 'material' ? r.itemId : null));
  linkField<{ stock: string; itemId: string }>(ref, 'assemblyBill', 'AssemblyBill',
    `The assembly bill whose pre-assembled units are ${what} (stock \`preassembled\`); null for a material.`, (r) => (r.stock === 'preassembled' ? r.itemId : null));
}

// A pre-assembled leaf is `subassembly:<assemblyId>`; any other leaf is a material.
const PREASSEMBLED = 'subassembly:';
linkField(LimitingComponentRef, 'material', 'RawMaterial', 'The raw material of this leaf; null for a pre-assembled leaf.',
  (c) => (c.origin === 'preassembled' ? null : c.nodeId));
linkField(LimitingComponentRef, 'assemblyBill', 'AssemblyBill', 'The assembly bill of a pre-assembled leaf; null for a material.',
  (c) => (c.origin === 'preassembled' && c.nodeId.startsWith(PREASSEMBLED) ? c.nodeId.slice(PREASSEMBLED.length) : null));
