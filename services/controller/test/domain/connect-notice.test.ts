import { describe, expect, it } from 'vitest';
import { harness } from '../helpers/harness.js';

/** "Relay node connected" after every controller restart would teach people to ignore it. */
describe('relay node connect notices around a restart', () => {
  const connects = (events: string[]) => events.filter((e) => e === 'slave_connected').length;

  it('the first connect after boot is quiet when nobody was told the node was lost', async () => {
    const h = await harness({ state: { slave_connection_status: 'connected' } });
    await h.controller.relayReported({ connected: true });
    expect(h.controller.view().slave_connected).toBe(true);
    expect(connects(h.repo.events())).toBe(0);
    // A real loss and return after that is news, both ways.
    await h.controller.relayReported({ connected: false });
    await h.controller.relayReported({ connected: true });
    expect(h.repo.events().filter((e) => e.startsWith('slave_'))).toEqual([
      'slave_disconnected',
      'slave_connected',
    ]);
  });

  it('a node reported lost before the restart is announced when it comes back', async () => {
    const h = await harness({ state: { slave_connection_status: 'disconnected' } });
    await h.controller.relayReported({ connected: true });
    expect(connects(h.repo.events())).toBe(1);
  });
});
