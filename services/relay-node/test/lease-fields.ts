/**
 * Lease fields for a REST heartbeat: issued at `now` (the node's clock, a test's manual clock when it
 * has one), expiring after 3 × the interval. Each call opens a new epoch, as a restarted controller
 * would, so a suite that also sends its own epochs never finds this one retired.
 */
let count = 0;

export function leased<T extends { heartbeat_interval: number }>(hb: T, now = Date.now()) {
  count += 1;
  const epoch = `test-${process.pid}-${count}`;
  return { ...hb, epoch, seq: 1, issued_at: now, expires_at: now + hb.heartbeat_interval * 3000 };
}
