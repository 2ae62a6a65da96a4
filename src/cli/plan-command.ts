import { randomUUID } from 'node:crypto';
import type { Orm } from '../app/database.ts';
import type { Config } from '../kernel/config.ts';
import type { WrittenPlan } from '../modules/planning/written-plan.ts';
import { PLAN_FORMATS, type PlanFormat } from '../modules/planning/planning-vocabulary.ts';
import { parse, requiredString, UsageError } from './args.ts';
import { Progress } from './progress.ts';

// `bomcore plan`: the shop's plan (docs/planning.md) as one JSON object or, for a spreadsheet or a
// supplier, a CSV of the buy suggestions. Numbers are written from the exact decimal text (JSON
// numbers through JSON.rawJSON), so no quantity goes through a binary float on the way out.

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
const num = (text: string): unknown => rawJSON(text);

/** The plan as the CLI's JSON writes it: the fields of the issue's shape, in its order. */
export function planJson(plan: WrittenPlan): unknown {
  const demand = (d: WrittenPlan['shortages'][number]['demands'][number]) => ({ sourceType: d.sourceType, sourceId: d.sourceId, quantity: num(d.quantity), needBy: d.needBy });
  return {
    shopId: plan.shopId,
    asOf: plan.asOf,
    buySuggestions: plan.buySuggestions.map((b) => ({
      variantId: b.variantId, locationId: b.locationId, quantity: num(b.quantity), net: num(b.net), needBy: b.needBy, orderBy: b.orderBy, late: b.late, essential: b.essential,
    })),
    makeSuggestions: plan.makeSuggestions.map((m) => ({
      itemType: m.itemType, itemId: m.itemId, variantId: m.variantId, locationId: m.locationId, quantity: num(m.quantity), needBy: m.needBy, startBy: m.startBy, late: m.late,
    })),
    shortages: plan.shortages.map((s) => ({
      variantId: s.variantId, locationId: s.locationId, required: num(s.required), onHand: num(s.onHand), allocated: num(s.allocated), net: num(s.net),
      needBy: s.needBy, essential: s.essential, demands: s.demands.map(demand), otherDemandCount: s.otherDemandCount,
    })),
    unlocated: plan.unlocated.map((u) => ({ itemId: u.itemId, orderId: u.orderId, quantity: num(u.quantity) })),
  };
}

const CSV_COLUMNS = ['variantId', 'locationId', 'quantity', 'net', 'needBy', 'orderBy', 'late', 'essential'] as const;
const cell = (value: string | boolean): string => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** One row per buy suggestion, with a header (RFC 4180 quoting, CRLF line ends as spreadsheets expect). */
export function planCsv(plan: WrittenPlan): string {
  const rows = plan.buySuggestions.map((b) => CSV_COLUMNS.map((c) => cell(b[c])).join(','));
  return `${[CSV_COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}

/** Plans a shop on a database this process holds (the CLI's own, or the server's for its admin socket). */
export async function planShopLocally(orm: Orm, config: Config, shopId: string, options: { asOf: string | null; locationIds: string[] | null }): Promise<WrittenPlan> {
  const [{ contextDeps }, { shopContextFor }, { planShop }, { shopExists }, { DomainError }] = await Promise.all([
    import('../app/composition.ts'), import('../kernel/shop-context.ts'), import('../modules/planning/planning.service.ts'),
    import('../modules/shops/shop-settings.ts'), import('../kernel/domain-error.ts'),
  ]);
  // A shop that does not exist is an error naming it (as `key create` and `webhook create` say), not an empty plan.
  if (!(await shopExists(orm.em.fork(), shopId))) throw DomainError.notFound('shop', shopId);
  const ctx = shopContextFor(contextDeps(orm, config), shopId, { requestId: `plan-${randomUUID()}`, apiKeyId: null, scopes: ['read'] });
  return planShop(ctx, options);
}

export async function planCommand(args: string[]): Promise<void> {
  const { values } = parse(args, {
    shop: { type: 'string' }, location: { type: 'string', multiple: true }, 'as-of': { type: 'string' }, format: { type: 'string' },
  });
  const shopId = requiredString(values.shop, '--shop');
  const format = (values.format ?? 'json') as PlanFormat;
  if (!PLAN_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${PLAN_FORMATS.join(', ')}, got "${values.format}"`);
  const asOf = values['as-of'] ?? null;
  const locationIds = values.location && values.location.length > 0 ? values.location : null;
  const [{ loadConfig }, { answerBody, onRunningServer }] = await Promise.all([import('../kernel/config.ts'), import('./admin-client.ts')]);
  const pairs: [string, string][] = [...(asOf ? [['asOf', asOf] as [string, string]] : []), ...(locationIds ?? []).map((l): [string, string] => ['location', l])];
  const query = new URLSearchParams(pairs).toString();
  const bar = new Progress();
  bar.step('plan', `shop ${shopId}`);
  let plan: WrittenPlan;
  try {
    // While `bomcore serve` holds the embedded database, the server plans (src/cli/admin-socket.ts).
    plan = await onRunningServer(loadConfig(), { method: 'GET', path: `/shops/${encodeURIComponent(shopId)}/plan${query ? `?${query}` : ''}` },
      (answer) => JSON.parse(answerBody(answer).toString('utf8')) as WrittenPlan,
      async () => {
        const { withDatabase } = await import('./database.ts');
        return withDatabase((orm, config) => planShopLocally(orm, config, shopId, { asOf, locationIds }));
      });
  } finally {
    bar.finish();
  }
  const text = format === 'csv' ? planCsv(plan) : `${JSON.stringify(planJson(plan), null, 2)}\n`;
  await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
  process.stderr.write(`planned shop ${shopId} as of ${plan.asOf}: ${plan.buySuggestions.length} buy, ${plan.makeSuggestions.length} make, ${plan.shortages.length} shortage rows\n`);
}
