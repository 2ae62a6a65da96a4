import type { DatasetError } from './types.ts';

// A dataset is checked one section at a time (a file is streamed), but problems are reported in
// one stable order: every field-shape problem of the file first, then duplicates, then the
// references of the catalogue, cycles, stock and work orders, as the rules are listed. Each
// check writes to its kind's list; the lists are read in this order.

export const PROBLEM_KINDS = [
  'shape',
  'formatVersion',
  'duplicate:locations', 'duplicate:variants', 'duplicate:orders', 'duplicate:materials', 'duplicate:costFactors',
  'duplicate:assemblyBills', 'duplicate:boms', 'duplicate:assignees', 'duplicate:flows', 'duplicate:tasks',
  'catalog:variants', 'catalog:materials', 'catalog:assemblyBills', 'catalog:boms', 'catalog:locationRules', 'catalog:locationRules:duplicates',
  'cycles',
  'stock:preassembled', 'stock:preassembled:duplicates', 'stock:residuals', 'stock:residuals:duplicates',
  'stock:reservations', 'stock:reservations:duplicates', 'stock:billVersions', 'stock:billVersions:duplicates',
  'workOrders:duplicates', 'workOrders', 'workOrders:qcReviews', 'workOrders:reworkItems', 'workOrders:documents',
  'workOrders:conversation', 'workOrders:lifecycleEvents',
] as const;

export type ProblemKind = (typeof PROBLEM_KINDS)[number];

/** Where a check reports (an array qualifies). */
export interface ErrorSink {
  push(error: DatasetError): void;
}

export class Problems {
  private readonly lists = new Map<ProblemKind, DatasetError[]>(PROBLEM_KINDS.map((kind) => [kind, []]));
  private readonly sinks = new Map<ProblemKind, ErrorSink>();
  /** Every problem found, including those not kept. */
  count = 0;
  private readonly keepPerKind: number;

  /**
   * @param keepPerKind how many problems of each kind to keep (the rest are only counted): a
   * file with a million bad lines must not take a million error objects of memory. The first N
   * problems overall are always among those kept when N ≤ keepPerKind.
   */
  constructor(keepPerKind = Number.POSITIVE_INFINITY) {
    this.keepPerKind = keepPerKind;
  }

  add(kind: ProblemKind, path: string, message: string): void {
    this.push(kind, { path, message });
  }

  private push(kind: ProblemKind, error: DatasetError): void {
    this.count++;
    const list = this.lists.get(kind)!;
    if (list.length < this.keepPerKind) list.push(error);
  }

  sink(kind: ProblemKind): ErrorSink {
    let sink = this.sinks.get(kind);
    if (!sink) this.sinks.set(kind, (sink = { push: (error) => this.push(kind, error) }));
    return sink;
  }

  /** The problems kept, in reporting order. */
  list(): DatasetError[] {
    return PROBLEM_KINDS.flatMap((kind) => this.lists.get(kind)!);
  }
}
