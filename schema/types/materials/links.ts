import { AdjustmentRef } from '../stock/adjustments.ts';
import { LimitingComponentRef } from '../boms/buildable.ts';
import { LineChangeRef, MaterialNeedChangeRef } from '../boms/location-rules.ts';
import { PreassembledRef } from '../stock/stock.ts';
import { OrderMaterialRef } from '../orders/breakdown.ts';
import { PickRef, PlanConsumptionRowRef, PlanContributionRef, PlanMaterialRef, WarningRef } from '../work-orders/work-order.ts';
import { linkField } from '../common/link-field.ts';

// Every `variantId` of a material, and every item or node id that is a material or an assembly
// bill's pre-assembled shelf, leads to the `RawMaterial` or `AssemblyBill` it names.

const MATERIAL = 'The raw material of `variantId` (null if it no longer exists).';

linkField(PlanMaterialRef, 'material', 'RawMaterial', MATERIAL, (m) => m.variantId);
linkField(PlanContributionRef, 'material', 'RawMaterial', MATERIAL, (c) => c.variantId);
linkField(MaterialNeedChangeRef, 'material', 'RawMaterial', MATERIAL, (c) => c.variantId);
linkField(AdjustmentRef, 'material', 'RawMaterial', MATERIAL, (a) => a.variantId);
linkField(WarningRef, 'material', 'RawMaterial', 'The raw material the warning is about; null when it names none.', (w) => w.variantId);
linkField(OrderMaterialRef, 'material', 'RawMaterial', MATERIAL, (m) => m.variantId);

// A pre-assembled shelf holds a variant (a finished good or a material) or an assembly bill's units.
linkField(PreassembledRef, 'material', 'RawMaterial', 'The raw material of a variant shelf (itemType `variant`); null for a finished good that is no material, or an assembly bill.',
  (p) => (p.itemType === 'variant' ? p.itemId : null));
linkField(PreassembledRef, 'assemblyBill', 'AssemblyBill', 'The assembly bill of an assembly shelf (itemType `assemblyBill`); null for a variant.',
  (p) => (p.itemType === 'assemblyBill' ? p.itemId : null));

// A rule's line change names a material (lineType `raw`) or an assembly bill (`sub`); what a
// replacement replaces is looked up as both (the id names one of them, the other is null).
linkField(LineChangeRef, 'material', 'RawMaterial', 'The raw material of a `raw` line as used here; null for a `sub` line.', (c) => (c.lineType === 'raw' ? c.nodeId : null));
linkField(LineChangeRef, 'assemblyBill', 'AssemblyBill', 'The assembly bill of a `sub` line as used here; null for a `raw` line.', (c) => (c.lineType === 'sub' ? c.nodeId : null));
linkField(LineChangeRef, 'replacesMaterial', 'RawMaterial', 'The raw material a replacement replaces; null when it replaces none or an assembly bill.', (c) => c.replacesNodeId);
linkField(LineChangeRef, 'replacesAssemblyBill', 'AssemblyBill', 'The assembly bill a replacement replaces; null when it replaces none or a material.', (c) => c.replacesNodeId);

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
