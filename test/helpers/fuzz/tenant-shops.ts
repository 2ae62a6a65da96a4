import { exportDataset } from '../../../src/dataset/export.ts';
import { toDataset } from '../dataset-factory.ts';
import { stockSnapshot } from '../stock-snapshot.ts';
import { stockShop } from '../material-fixtures.ts';
import type { TestApp } from '../test-app.ts';

type Json = Record<string, unknown>;

/**
 * Shop B of the tenant matrix: stockShop with every id renamed so that no id of B exists in shop A
 * (a request of A's key for a B id must be "not found", never "found in A"), and every B id carries
 * the marker `X9`/`x9` (or a 9xx number), so a leak of B's data is visible in any response text.
 */
const RENAMES: [RegExp, string][] = [
  [/^44(\d{3})$/, '99$1'], [/^46(\d{3})$/, '96$1'], [/^8(\d{3})$/, '98$1'],
  [/^10([1-3])$/, '90$1'], [/^50(0\d)$/, '990$1'],
  [/^VMAT-(VAR|PROD|INV)-(\d+)$/, 'VMAT-$1-X9$2'], [/^BOM-(\d+)$/, 'BOM-99$1'], [/^ASM-(\d+)$/, 'ASM-X9$1'], [/^CF-(\d+)$/, 'CF-X9$1'],
  [/^wo_(\w+)$/, 'wo_x9$1'], [/^run-(\w+)$/, 'run-x9$1'], [/^asg_(\w+)$/, 'asg_x9$1'],
];

function rename(value: unknown): unknown {
  if (typeof value === 'string') {
    for (const [pattern, replacement] of RENAMES) if (pattern.test(value)) return value.replace(pattern, replacement);
    return value;
  }
  if (Array.isArray(value)) return value.map(rename);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
  return value;
}

export function shopBJson(shopId: string): Json {
  const json = rename(stockShop(shopId)) as Json & { shop: Json };
  return { ...json, shop: { ...json.shop, id: shopId, name: `Shop X9 ${shopId}` } };
}

/** Ids of shop B by what they name (the argument / parameter name they go in). */
export const B = {
  platformMaterial: '99001', virtualMaterial: 'VMAT-VAR-X90001', bom: 'BOM-991001', assembly: 'ASM-X91', costFactor: 'CF-X91',
  workOrder: 'wo_x9a', workOrderItem: 'wo_x9a_i0', buildRun: 'run-x9a1', location: '901', order: '9901', assignee: 'asg_x9zoe',
};

/** Does `text` hold anything of shop B (its ids carry X9 / 9xx, its name its shop id)? */
export function leaksShopB(text: string, shopB: string): string | null {
  const match = /X9|x9|BOM-99|"99\d{3}"|"990\d"|"90[1-3]"|\b9900[12]\b/.exec(text) ?? (text.includes(shopB) ? [shopB] : null);
  return match ? match[0] : null;
}

export function loadShopB(t: TestApp, shopId: string) {
  return t.load(toDataset(shopBJson(shopId)));
}

/** Everything shop B holds, as comparable JSON: its dataset export (every table) and its stock figures. */
export async function shopBState(t: TestApp, shopId: string): Promise<string> {
  const dataset = await exportDataset(t.orm.em, shopId);
  const stock = await stockSnapshot(t.orm, shopId);
  const history = await t.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from inventory_adjustments where shop_id = ?', [shopId]);
  return JSON.stringify({ dataset, stock, adjustments: history[0]?.n });
}
