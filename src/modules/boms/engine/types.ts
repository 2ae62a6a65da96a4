import type { Exact } from '../../../kernel/numbers/index.ts';
import type { BillOwnerType, BomStatus, LocationRuleAction, RecipeLineType, StorefrontStockMode } from '../recipe-vocabulary.ts';

export type { BillOwnerType };

export interface BillKey { ownerType: BillOwnerType; ownerId: string }

export type LineType = RecipeLineType;

export interface EngineLine {
  lineType: LineType;
  nodeId: string;
  quantity: Exact;
  wastePercentage: Exact;
  position: number;
  changedBy: Exclude<LocationRuleAction, 'remove'> | null;
}

/** One override of a bill's location rule, in rule order. */
export interface EngineOverride {
  action: LocationRuleAction;
  position: number;
  nodeId: string;
  replacementNodeId: string | null;
  quantity: Exact | null;
  wastePercentage: Exact | null;
  /** The node the override introduces (nodeId for add, replacementNodeId for replace) is an assembly bill. */
  introducesAssembly: boolean;
}

export interface EngineBill {
  key: BillKey;
  name: string;
  /** Assembly bills only; always false for BOMs. */
  onlyConsumePreassembled: boolean;
  /** BOMs only: the finished good's platform variant (null = not platform-linked). */
  variantId: string | null;
  /** BOMs only. */
  status: BomStatus | null;
  /** BOMs only: whether and how bomcore sets the finished good's storefront level. */
  storefrontStock?: StorefrontStockMode | null;
  /** Planning: whole days from starting a batch of it to having it (absent: 0, as for bills built in memory). */
  leadTimeDays?: number;
  /** Base recipe: raw lines, then sub lines, then cost lines, each by position. */
  lines: EngineLine[];
  /** locationId → overrides of the bill's rule there (a rule may have none). */
  rules: Map<string, EngineOverride[]>;
}

/**
 * Every bill reachable from the roots (through sub-assembly lines and through assemblies that
 * location rules add or swap in), with base lines, flags and location-rule overrides.
 * Treat as immutable; effective lines are memoised inside.
 */
export interface RecipeForest {
  readonly bills: ReadonlyMap<string, EngineBill>;
  /** Memo of effectiveLines: locationId ('' = base recipe) → billKey → lines (no key string built per look-up). */
  readonly lineCache: Map<string, Map<string, EngineLine[]>>;
}

export function billKeyString(bill: BillKey): string {
  return `${bill.ownerType}:${bill.ownerId}`;
}
