import type { Progress } from './generate-catalog.ts';
import { loop } from './generate-catalog.ts';
import type { Prng } from './prng.ts';
import type {
  BillOwnerType, DatasetAssemblyBill, DatasetAssignee, DatasetBillVersion, DatasetBom, DatasetBuildRun, DatasetFlow, DatasetLocation,
  DatasetRecipe, DatasetTask, DatasetWorkOrder, DatasetWorkOrderItem, WorkOrderStatus,
} from './types.ts';
import { WORK_ORDER_PRIORITIES, WORK_ORDER_SOURCE_TYPES, WORK_ORDER_STATUSES } from './types.ts';

// Synthetic people, planning records, work orders (one per status in turn, with the history
// their status implies) and bill versions.

const BASE_TIME = Date.UTC(2026, 0, 5, 8, 0, 0);
const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const FIRST_NAMES = ['Ana', 'Ben', 'Chloé', 'Dev', 'Emil', 'Farah', 'Gus', 'Hana', 'Ivo', 'Jun'];

export function generateAssignees(count: number): DatasetAssignee[] {
  return Array.from({ length: count }, (_, i) => {
    const first = FIRST_NAMES[i % FIRST_NAMES.length] ?? 'Sam';
    const round = Math.floor(i / FIRST_NAMES.length);
    const displayName = round === 0 ? first : `${first} ${round + 1}`;
    // Every fourth person has left: retired assignees still resolve on old work orders.
    return { assigneeId: `asg_${first.toLowerCase().normalize('NFD').replace(/[^a-z]/g, '')}${round === 0 ? '' : round + 1}`, displayName, active: i % 4 !== 3 };
  });
}

export function generateFlows(count: number): DatasetFlow[] {
  const names = ['Weekly candle batch', 'Market restock', 'Wholesale cycle', 'Seasonal launch'];
  return Array.from({ length: count }, (_, i) => ({ flowId: `flow_${i + 1}`, name: `${names[i % names.length] ?? 'Flow'} ${i + 1}` }));
}

export function generateTasks(count: number): DatasetTask[] {
  const titles = ['Restock wax', 'Order jars', 'Test new wick', 'Photograph range', 'Count warehouse'];
  return Array.from({ length: count }, (_, i) => ({ taskId: `todo_${i + 1}`, title: `${titles[i % titles.length] ?? 'Task'} ${i + 1}` }));
}

/** The states a work order passed through to reach `status`, starting at draft. */
function pathTo(status: WorkOrderStatus, rng: Prng): WorkOrderStatus[] {
  const main: WorkOrderStatus[] = ['draft', 'ready', 'in_progress', 'quality_control', 'qc_approved', 'completed'];
  if (status === 'paused') return ['draft', 'ready', 'in_progress', 'paused'];
  if (status === 'cancelled') return rng.chance(0.5) ? ['draft', 'cancelled'] : ['draft', 'ready', 'in_progress', 'cancelled'];
  return main.slice(0, main.indexOf(status) + 1);
}

export interface WorkOrderInputs {
  boms: DatasetBom[];
  bills: DatasetAssemblyBill[];
  materialIds: string[];
  locations: DatasetLocation[];
  assignees: DatasetAssignee[];
  flows: DatasetFlow[];
  tasks: DatasetTask[];
  orderIds: string[];
}

const WORK_NAMES = ['Batch', 'Restock', 'Custom order', 'Fair prep', 'Wholesale run'];
const TAGS = ['fair', 'wholesale', 'rush', 'seasonal', 'gift'];

export function generateWorkOrders(rng: Prng, count: number, inputs: WorkOrderInputs, progress: Progress): DatasetWorkOrder[] {
  const owners: { ownerType: BillOwnerType; ownerId: string; recipe: DatasetRecipe }[] = [
    ...inputs.boms.map((bom) => ({ ownerType: 'bom' as const, ownerId: bom.bomId, recipe: bom })),
    ...inputs.bills.map((bill) => ({ ownerType: 'sub_assembly' as const, ownerId: bill.assemblyId, recipe: bill })),
  ];
  const recipes = new Map(owners.map((owner) => [owner.ownerId, owner.recipe]));
  const workOrders: DatasetWorkOrder[] = [];
  loop(count, 'workOrders', progress, (w) => {
    const status = WORK_ORDER_STATUSES[w % WORK_ORDER_STATUSES.length] as WorkOrderStatus;
    let clock = BASE_TIME + w * 17 * MINUTE + rng.int(0, 600) * MINUTE;
    const createdAt = iso(clock);
    const tick = () => iso((clock += rng.int(5, 1800) * MINUTE));
    const productionLocationId = status === 'draft' && rng.chance(0.3) ? null : rng.pick(inputs.locations).id;
    const pickLocation = productionLocationId ?? (inputs.locations[0] as DatasetLocation).id;
    const done = status === 'quality_control' || status === 'qc_approved' || status === 'completed';

    const itemCount = owners.length === 0 || (status === 'draft' && rng.chance(0.2)) ? 0 : rng.int(1, 3);
    const items: DatasetWorkOrderItem[] = rng.pickDistinct(owners, itemCount).map((owner, k) => {
      const quantity = owner.ownerType === 'bom' ? String(rng.int(1, 40)) : rng.decimal(0.5, 20, 1);
      const completedQuantity = done ? quantity : status === 'in_progress' || status === 'paused' ? String(rng.int(0, Math.floor(Number(quantity)))) : '0';
      return { itemId: `woi_${k + 1}`, ownerType: owner.ownerType, ownerId: owner.ownerId, quantity, completedQuantity };
    });

    let sourceType = rng.pick(WORK_ORDER_SOURCE_TYPES);
    if (sourceType === 'orders' && inputs.orderIds.length === 0) sourceType = 'empty';
    const path = pathTo(status, rng);
    const madeRun = path.includes('in_progress') && items.length > 0 && (status !== 'cancelled' || rng.chance(0.5));
    const runStatus = status === 'in_progress' ? 'started' : status === 'cancelled' ? 'reversed' : 'completed';
    let runTimes = { startedAt: createdAt, completedAt: null as string | null };
    const lifecycleEvents = path.map((toStatus, k) => {
      const event = {
        eventId: `evt_${rng.uuid()}`, fromStatus: k === 0 ? null : (path[k - 1] as WorkOrderStatus), toStatus,
        note: toStatus === 'cancelled' ? 'Customer withdrew the order' : null,
        actorUserId: rng.chance(0.7) ? `user_${rng.int(1, 9)}` : null, actorDisplayName: rng.chance(0.7) ? rng.pick(FIRST_NAMES) : null,
        createdAt: k === 0 ? createdAt : tick(),
      };
      // The run happens while the work order is in progress, before the next move.
      if (toStatus === 'in_progress' && madeRun) runTimes = { startedAt: tick(), completedAt: runStatus === 'started' ? null : tick() };
      return event;
    });

    const buildRuns: DatasetBuildRun[] = [];
    if (madeRun) {
      const recipeLines = items.flatMap((item) => recipes.get(item.ownerId)?.rawMaterialReferences.slice(0, 2) ?? []);
      const pickIds = [...new Set(recipeLines.map((line) => line.nodeId))];
      buildRuns.push({
        buildRunId: `run-${runTimes.startedAt.slice(0, 10)}-a`, status: runStatus, runType: 'production', ...runTimes,
        items: items.map((item) => ({ itemId: item.itemId, quantity: done ? item.quantity : String(rng.int(1, Math.max(1, Math.floor(Number(item.quantity))))) })),
        picks: pickIds.map((variantId) => ({ variantId, locationId: pickLocation, quantity: rng.decimal(0.01, 60, 2) })),
      });
    }
    const run = buildRuns[0];
    const qcReviews = run && done && (status !== 'quality_control' || rng.chance(0.5)) ? [{
      reviewId: `qc_${rng.uuid()}`, buildRunId: run.buildRunId, decision: status === 'quality_control' ? 'rejected' as const : 'approved' as const,
      // A run in QC failed its review as a whole; a later one passed it as a whole.
      items: run.items.map((x) => status === 'quality_control'
        ? { itemId: x.itemId, approvedQuantity: '0', failedQuantity: x.quantity }
        : { itemId: x.itemId, approvedQuantity: x.quantity, failedQuantity: '0' }),
      note: status === 'quality_control' ? 'Wicks off-centre on some jars' : null, reviewerName: rng.pick(FIRST_NAMES), createdAt: tick(),
    }] : [];
    const reworkStatus = status === 'quality_control' ? 'open' as const : status === 'completed' && rng.chance(0.3) ? 'resolved' as const : null;
    const reworkItems = run && reworkStatus ? [{
      reworkItemId: `rw_${rng.uuid()}`, description: 'Re-centre wicks', quantity: String(rng.int(1, 5)), status: reworkStatus,
      buildRunId: run.buildRunId, createdAt: tick(), resolvedAt: reworkStatus === 'resolved' ? tick() : null,
    }] : [];

    workOrders.push({
      workOrderId: `wo_${rng.uuid()}`, name: `${rng.pick(WORK_NAMES)} ${w + 1}`,
      description: rng.chance(0.3) ? 'Synthetic work order for benchmarks' : null, notes: rng.chance(0.2) ? 'Use the new jars first' : null,
      status, priority: rng.pick(WORK_ORDER_PRIORITIES),
      dueDate: rng.chance(0.7) ? iso(BASE_TIME + w * 17 * MINUTE + rng.int(3, 60) * 1440 * MINUTE).slice(0, 10) : null,
      assigneeId: rng.chance(0.85) ? rng.pick(inputs.assignees).assigneeId : null,
      productionLocationId, defaultConsumptionLocationId: rng.chance(0.5) ? rng.pick(inputs.locations).id : null,
      sourceType, sourceFlowId: sourceType === 'flow' ? rng.pick(inputs.flows).flowId : null,
      sourceTodoId: rng.chance(0.15) ? rng.pick(inputs.tasks).taskId : null,
      sourceOrderIds: sourceType === 'orders' ? rng.pickDistinct(inputs.orderIds, rng.int(1, 3)) : [],
      tags: rng.pickDistinct(TAGS, rng.int(0, 2)),
      plannedLaborCost: rng.chance(0.6) ? rng.decimal(20, 500, 2) : null, actualLaborCost: status === 'completed' ? rng.decimal(20, 500, 2) : null,
      createdAt, updatedAt: createdAt,
      items,
      manualMaterials: inputs.materialIds.length > 0 && rng.chance(0.3)
        ? rng.pickDistinct(inputs.materialIds, rng.int(1, 2)).map((variantId) => ({
          variantId, quantity: rng.decimal(0.1, 10, 1), locationId: rng.chance(0.5) ? null : rng.pick(inputs.locations).id, note: rng.chance(0.5) ? 'spare' : null,
        }))
        : [],
      buildRuns, qcReviews, reworkItems,
      documents: rng.chance(0.1) ? [{ documentId: `doc_${rng.uuid()}`, name: 'Packing spec.pdf', url: `https://files.example.com/wo/${w + 1}/spec.pdf`, createdAt: tick() }] : [],
      conversation: rng.chance(0.2) ? [{ messageId: `msg_${rng.uuid()}`, authorName: rng.pick(FIRST_NAMES), body: 'Jars arrive Tuesday.', createdAt: tick() }] : [],
      lifecycleEvents,
    });
    // The last thing that happened is the latest change.
    (workOrders[workOrders.length - 1] as DatasetWorkOrder).updatedAt = iso(clock);
  });
  return workOrders;
}

const TRIGGERS = ['manual', 'import', 'recipe_edit', 'location_rule_edit'];

/** Version histories for about one bill in ten; the newest is sometimes still pending. */
export function generateBillVersions(rng: Prng, boms: DatasetBom[], bills: DatasetAssemblyBill[], assignees: DatasetAssignee[]): DatasetBillVersion[] {
  const owners = [
    ...boms.map((bom) => ({ ownerType: 'bom' as const, ownerId: bom.bomId })),
    ...bills.map((bill) => ({ ownerType: 'sub_assembly' as const, ownerId: bill.assemblyId })),
  ];
  const versions: DatasetBillVersion[] = [];
  owners.forEach((owner, i) => {
    if (!rng.chance(0.1)) return;
    const count = rng.int(1, 4);
    let clock = BASE_TIME + i * 11 * MINUTE;
    for (let version = 1; version <= count; version++) {
      const pending = version === count && rng.chance(0.25);
      versions.push({
        ...owner, version, state: pending ? 'pending' : 'ready', savedAt: iso((clock += rng.int(60, 20_000) * MINUTE)),
        savedBy: assignees.length > 0 && rng.chance(0.8) ? rng.pick(assignees).displayName : null, trigger: rng.pick(TRIGGERS),
        contentHash: pending ? null : `sha256:${rng.hex(64)}`,
        changes: { recipeFields: rng.int(0, 5), materials: rng.int(0, 6), locationRules: rng.int(0, 2), overrides: rng.int(0, 4) },
      });
    }
  });
  return versions;
}
