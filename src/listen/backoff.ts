// How long `svc listen` waits before reconnecting to the event stream: doubling from
// half a second, capped at 15 s so a developer's restarted server is picked up quickly; back to
// the start once a connection has been open.

export const firstReconnectDelayMs = 500;
export const maxReconnectDelayMs = 15_000;

/** The delay before reconnect attempt `failures` (1 = after the first failure). */
export function reconnectDelayMs(failures: number): number {
  if (failures < 1) return 0;
  return Math.min(maxReconnectDelayMs, firstReconnectDelayMs * 2 ** Math.min(failures - 1, 30));
}
