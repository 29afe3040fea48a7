import { afterEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../helpers/sim.js';

/**
 * What a simulator session may aim UDP at: a bounded number of tablet addresses in all, and no
 * broadcast or multicast address unless ALLOW_BROADCAST_TARGETS says so. These tests only validate
 * settings; the emulator is never started, so nothing is sent anywhere.
 */
const sims: TestSim[] = [];
afterEach(async () => {
  for (const s of sims.splice(0)) await s.close();
});
async function sim(env: Record<string, string> = {}): Promise<TestSim> {
  const s = await startTestSim(env);
  sims.push(s);
  return s;
}
const network = async (s: TestSim) =>
  ((await s.api.post('/api/config/network', {})).body.network as Record<string, unknown>) ?? {};

describe('EFB, GDL 90 and UDP targets', () => {
  it('64 ranges of 256 addresses (16,384 targets) are refused with 422 naming the field; the settings stay', async () => {
    const s = await sim();
    const before = await network(s);
    const flood = Array.from({ length: 64 }, (_, i) => `10.${i}.0.0-10.${i}.0.254`);
    const res = await s.api.post('/api/config/network', { efb_target_ips: flood, efb_ip_enabled: true });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/^efb_target_ips: at most 256 addresses in all/);
    expect(res.body.messages).toEqual([expect.stringContaining('efb_target_ips')]);
    expect(await network(s)).toEqual(before);
  });

  it('up to 256 addresses in all are accepted, one more is not', async () => {
    const s = await sim();
    const ok = await s.api.post('/api/config/network', {
      efb_target_ips: ['10.0.0.0-10.0.0.254', '10.0.1.1'],
    });
    expect(ok.status).toBe(200);
    const over = await s.api.post('/api/config/network', {
      efb_target_ips: ['10.0.0.0-10.0.0.254', '10.0.1.1', '10.0.1.2'],
    });
    expect(over.status).toBe(422);
  });

  it.each([
    ['efb_target_ips', ['192.168.1.255']],
    ['efb_target_ips', ['192.168.1.250-255']],
    ['efb_target_ips', ['224.0.0.251']],
    ['efb_target_ips', ['255.255.255.255']],
    ['target_ip', '239.1.2.3'],
    ['target_ip', '255.255.255.255'],
    ['rebroadcast_udp_ip', '10.1.1.255'],
    ['rebroadcast_udp_ip', '0.0.0.0'],
  ])(
    'refuses %s %j: a broadcast or multicast address needs ALLOW_BROADCAST_TARGETS',
    async (field, value) => {
      const s = await sim();
      const res = await s.api.post('/api/config/network', { [field]: value });
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatch(new RegExp(`^${field}: .* is a broadcast or multicast address`));
    },
  );

  it('ALLOW_BROADCAST_TARGETS=true allows them; the total stays bounded', async () => {
    const s = await sim({ ALLOW_BROADCAST_TARGETS: 'true' });
    const res = await s.api.post('/api/config/network', {
      efb_target_ips: ['192.168.1.255', '224.0.0.251'],
      target_ip: '255.255.255.255',
    });
    expect(res.status).toBe(200);
    const flood = Array.from({ length: 2 }, (_, i) => `10.${i}.0.0-10.${i}.0.255`);
    expect((await s.api.post('/api/config/network', { efb_target_ips: flood })).status).toBe(422);
  });

  it('unicast tablets on the LAN and loopback stay accepted', async () => {
    const s = await sim();
    const res = await s.api.post('/api/config/network', {
      efb_target_ips: ['192.168.1.20', '192.168.1.30-40', '127.0.0.1'],
      target_ip: '192.168.1.5',
    });
    expect(res.status).toBe(200);
  });
});
