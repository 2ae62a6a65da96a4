// SQL statements per request (the X-Query-Count header: statements of the stored operation; the
// API-key lookup adds one) that `npm run bench -- --smoke` allows per scenario. The numbers are
// the counts measured when the scenario was added: lower one when a change saves a statement;
// raising one needs a reason (docs/contributing.md, "Bounded queries").
export const EXPECTED_MAX_QUERY_COUNTS: Record<string, number> = {
  'locations': 1,
  'materials-list': 1,
  'materials-by-quantity': 1,
  'bom-deep': 5,
  'buildable': 7,
  // The 304 is answered before the operation runs (the key lookup reads the data version).
  'buildable-304': 0,
  'bom-list': 1,
  'breakdown-50': 5,
  'work-order-list': 3,
  'work-order-read': 19,
  'material-plan': 13,
  // The whole shop's plan: a repeatable-read snapshot of set-based reads (docs/planning.md).
  'planning': 14,
  // +1 each (8 → 9, 27 → 28): a write records its events in the transaction — the shop's event
  // sequence, the events and their webhook deliveries in one statement before the commit (docs/events.md).
  'inventory-patch': 9,
  // +1 (28 → 29): a production run consumes its share of the work order's manual material lines
  // (docs/work-orders.md), so the start reads them; one statement whatever the number of lines.
  'build-run': 29,
};
