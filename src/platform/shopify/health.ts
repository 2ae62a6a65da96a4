import type { Em, Orm } from '../../db/orm.ts';
import { startPeriodicPass, type PeriodicPass } from '../../kernel/jobs/periodic-pass.ts';
import { PLATFORM_WARNINGS, type PlatformWarning } from '../../kernel/platform-port/platform-warnings.ts';
import { unhealthyConnections, type UnhealthyConnection } from './connections.ts';

/**
 * Which shops' stores do not answer, as this process knows it: the connections whose sync or
 * reconciliation pass failed (or whose store uninstalled the app, or refused to renew its token), re-read every few seconds — one
 * statement per interval for the whole process, none per request — so a read of such a shop can
 * say that it serves the last synced state, and how old it is, at no cost to the others.
 */
export class PlatformHealth {
  #unhealthy = new Map<string, UnhealthyConnection>();

  /** Re-reads the unhealthy connections (all shops). */
  async refresh(em: Em): Promise<void> {
    const rows = await unhealthyConnections(em);
    this.#unhealthy = new Map(rows.map((r) => [r.shopId, r]));
  }

  /** The warnings a read of `shopId` carries now (none for a shop whose store answers). */
  warningsFor(shopId: string, now: Date = new Date()): PlatformWarning[] {
    const c = this.#unhealthy.get(shopId);
    if (!c) return [];
    const lastSyncedAt = c.lastContactAt?.toISOString() ?? null;
    const ageSeconds = c.lastContactAt ? Math.max(0, Math.floor((now.getTime() - c.lastContactAt.getTime()) / 1000)) : null;
    const served = lastSyncedAt ? `as last read from the store ${describeAge(ageSeconds!)} ago (${lastSyncedAt})` : 'as far as bomcore has read the store (no sync has ended yet)';
    if (c.uninstalledAt) {
      return [{
        code: 'PLATFORM_UNINSTALLED', remedy: PLATFORM_WARNINGS.PLATFORM_UNINSTALLED.remedy, lastSyncedAt, ageSeconds,
        message: `the store uninstalled the app at ${c.uninstalledAt.toISOString()}: platform data is served ${served}`,
      }];
    }
    if (c.reauthorizeSince) {
      return [{
        code: 'PLATFORM_REAUTHORIZE', remedy: PLATFORM_WARNINGS.PLATFORM_REAUTHORIZE.remedy, lastSyncedAt, ageSeconds,
        message: `the store refused to renew bomcore's access token at ${c.reauthorizeSince.toISOString()}${c.reauthorizeReason ? ` (${c.reauthorizeReason.slice(0, 200)})` : ''}: platform data is served ${served}`,
      }];
    }
    return [{
      code: 'PLATFORM_STALE', remedy: PLATFORM_WARNINGS.PLATFORM_STALE.remedy, lastSyncedAt, ageSeconds,
      message: `the store has not answered since ${c.failingSince!.toISOString()}${c.lastError ? ` (${c.lastError.slice(0, 200)})` : ''}: platform data is served ${served}`,
    }];
  }
}

function describeAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

export interface PlatformHealthWatch { health: PlatformHealth; refresh(): Promise<void>; stop(): Promise<void> }

/** Keeps a PlatformHealth current, re-reading every `intervalMs` (0: only on `refresh`). */
export function watchPlatformHealth(options: { orm: Orm; intervalMs: number; onError: (error: unknown) => void }): PlatformHealthWatch {
  const health = new PlatformHealth();
  const pass: PeriodicPass<void> = startPeriodicPass({
    pass: () => health.refresh(options.orm.em.fork()), stoppedResult: undefined, intervalMs: options.intervalMs, firstDelayMs: 0,
    backlog: () => false, onError: options.onError,
  });
  return { health, refresh: () => pass.runOnce(), stop: () => pass.stop() };
}
