// Short human ids: `WO-0042` per shop, `WO-0042-R3` per build run of a work order.

export const workOrderShortId = (n: number): string => `WO-${String(n).padStart(4, '0')}`;
export const buildRunShortId = (workOrderShortId: string, n: number): string => `${workOrderShortId}-R${n}`;
