// SQL statements per request (the X-Query-Count header: statements of the stored operation; the
// API-key lookup adds one) that `npm run bench -- --smoke` allows per scenario. The numbers are
// the counts measured when the scenario was added: lower one when a change saves a statement;
// raising one needs a reason (docs/contributing.md, "Bounded queries").
export const EXPECTED_MAX_QUERY_COUNTS: Record<string, number> = {
  'locations': 1,
  'materials-list': 1,
  'materials-search': 1,
  'materials-by-quantity': 1,
  // 5 → 1: materials, cost factors, shelves and the finished good's variant attached to the recipe walk's rows.
  'bom-deep': 1,
  // 7 → 3: the materials, live levels (with the outbox's pending pushes), virtual levels and shelves in one statement.
  'buildable': 3,
  // The 304 is answered before the operation runs (the key lookup reads the data version).
  'buildable-304': 0,
  'bom-list': 1,
  'breakdown-50': 5,
  'work-order-list': 3,
  // 19 → 10 and 13 → 9: a work order's parts (items, runs, picks, reviews, …) are one statement
  // (each part a JSON array of its rows), not one per part.
  'work-order-read': 10,
  'material-plan': 9,
  // The whole shop's plan: a repeatable-read snapshot of set-based reads (docs/planning.md); 14 → 11
  // once a work order's parts are one statement.
  'planning': 11,
  // +1 each (8 → 9, 27 → 28): a write records its events in the transaction — the shop's event
  // sequence, the events and their webhook deliveries in one statement before the commit (docs/events.md).
  // +1 (9 → 10): a stock move marks the finished goods whose storefront level follows it (docs/shopify.md,
  // "Storefront stock"): one upsert whatever the recipe tree, a no-op row scan when no BOM of the shop sets its level.
  'inventory-patch': 10,
  // +1 (28 → 29): a production run consumes its share of the work order's manual material lines
  // (docs/work-orders.md), so the start reads them; one statement whatever the number of lines.
  // 29 → 17: the parts a start needs in one statement, picks only for a replay, the shop's
  // settings read with the work order's lock, and the run, its items and picks and the work
  // order's new token written in one statement and not read back; then +1 (17 → 18): the
  // storefront marker upsert of the run's stock move, as for inventory-patch. 18 → 11 (the
  // key lookup adds one: 12): the stock ledger's residuals created and locked by one upsert, its
  // level reads one statement (the platform's live levels embedded through the port's
  // `levelsSql`), and everything the move writes one statement of data-modifying CTEs, each
  // part its owner's query (src/db/statement-parts.ts). Where the statements go (X-Query-Count
  // of a start that moves virtual, platform and shelf stock; before, a kind a run did not touch
  // cost nothing; after, every run costs the same):
  //   statement                                   before  after
  //   begin                                          1      1
  //   work order locked + shop settings              1      1
  //   parts (items, manual, runs, run items)         1      1
  //   recipe forest                                  1      1
  //   assembly shelves (locked, to plan)             1      1
  //   residuals: create, lock                        2      1  (insert … on conflict do update … returning)
  //   levels: virtual, shelves, platform, pending    4      1  (union all; platform levels + pending embedded)
  //   writes: residuals, virtual levels, shelves,    6      1  (data-modifying CTEs)
  //     outbox pushes, storefront marker, history
  //   the run, its items and picks, token            1      1
  //   the events (sequence, events, deliveries)      1      1
  //   commit                                         1      1
  //   total (every kind moved; the bench's run: 18)  20     11
  'build-run': 11,
};
