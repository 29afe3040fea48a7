import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { START_MESSAGES } from '../../src/domain/start-validation.js';
import { startTestSim, type TestSim } from '../helpers/sim.js';

let sim: TestSim;
beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(async () => {
  await sim.close();
});

const NETWORK_RESET = {
  protocol: 'udp',
  target_ip: '',
  efb_enabled: false,
  efb_sim_name: '',
  efb_broadcast: false,
  efb_ip_enabled: false,
  efb_target_ips: [],
  rebroadcast_usb: false,
  rebroadcast_udp: false,
  rebroadcast_udp_ip: '',
};

beforeEach(async () => {
  await sim.api.ok('/api/config/modes', {
    standalone: false,
    sender: false,
    receiver: false,
    rebroadcaster: false,
    usb_output: false,
  });
  await sim.api.ok('/api/config/network', NETWORK_RESET);
  await sim.api.ok('/api/config/serial', { device: '/dev/ttyUSB0' });
});

async function startRefusal(): Promise<string> {
  const res = await sim.api.post('/api/control', { action: 'start' });
  expect(res.status).toBe(422);
  // `detail` joins the messages; `messages` lists them one by one for clients that show each.
  expect(Object.keys(res.body)).toEqual(['detail', 'messages']);
  expect((res.body.messages as string[]).join('; ')).toBe(res.body.detail);
  const status = await sim.api.get('/api/status');
  expect(status.body.running).toBe(false);
  return res.body.detail as string;
}

describe('start validation (spec Errors table) through POST /api/control', () => {
  it('no operating mode: asks to select an operating mode (and an airport: one message per missing choice)', async () => {
    expect(await startRefusal()).toBe(`${START_MESSAGES.mode}; ${START_MESSAGES.airport}`);
  });

  it('no airport: asks to select an airport', async () => {
    await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
    expect(await startRefusal()).toBe(START_MESSAGES.airport);
  });

  describe('with an airport selected', () => {
    beforeEach(async () => {
      await sim.api.ok('/api/position', { airport_icao: 'KSFO' });
    });

    it('stand-alone without any output: asks to select USB and/or EFB', async () => {
      await sim.api.ok('/api/config/modes', { standalone: true });
      expect(await startRefusal()).toBe(START_MESSAGES.standaloneOutput);
    });

    it('sender without a target IP: asks for the target IP of the NMEA output', async () => {
      await sim.api.ok('/api/config/modes', { sender: true });
      expect(await startRefusal()).toBe(START_MESSAGES.senderTargetIp);
    });

    it('USB output without a device: asks to select a USB device', async () => {
      await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
      expect((await sim.api.post('/api/config/serial', { device: '' })).status).toBe(422);
      await sim.api.ok('/api/config/serial', { device: null });
      expect(await startRefusal()).toBe(START_MESSAGES.usbDevice);
    });

    it('EFB enabled without a simulator name: asks for the simulator name', async () => {
      await sim.api.ok('/api/config/modes', { standalone: true });
      await sim.api.ok('/api/config/network', { efb_enabled: true, efb_broadcast: true, efb_sim_name: '' });
      expect(await startRefusal()).toBe(START_MESSAGES.efbSimName);
    });

    it('EFB IP targeting without addresses: asks for at least one IP', async () => {
      await sim.api.ok('/api/config/modes', { standalone: true });
      await sim.api.ok('/api/config/network', {
        efb_enabled: true,
        efb_ip_enabled: true,
        efb_sim_name: 'Sim1',
      });
      expect(await startRefusal()).toBe(START_MESSAGES.efbTargetIps);
    });

    it('EFB master on with neither broadcast nor IP targeting: asks to select one', async () => {
      await sim.api.ok('/api/config/modes', { standalone: true, usb_output: true });
      await sim.api.ok('/api/config/network', { efb_enabled: true, efb_sim_name: 'Sim1' });
      expect(await startRefusal()).toBe(START_MESSAGES.efbSubOption);
    });

    it('rebroadcaster without any output, or USB without a device', async () => {
      await sim.api.ok('/api/config/modes', { rebroadcaster: true });
      expect(await startRefusal()).toBe(START_MESSAGES.rebroadcastOutput);
      await sim.api.ok('/api/config/network', { rebroadcast_usb: true });
      await sim.api.ok('/api/config/serial', { device: null });
      expect(await startRefusal()).toBe(START_MESSAGES.rebroadcastUsbDevice);
    });

    it('UDP retransmit without a target IP: asks for the target IP', async () => {
      await sim.api.ok('/api/config/modes', { rebroadcaster: true, usb_output: true });
      await sim.api.ok('/api/config/network', { rebroadcast_udp: true, rebroadcast_udp_ip: '' });
      expect(await startRefusal()).toBe(START_MESSAGES.rebroadcastUdpIp);
    });
  });
});

describe('config bodies', () => {
  it('two operating modes at once are refused; a second mode replaces the first', async () => {
    const both = await sim.api.post('/api/config/modes', { standalone: true, sender: true });
    expect(both.status).toBe(422);
    expect(both.body.detail).toBe('Select only one operating mode (got standalone, sender)');
    await sim.api.ok('/api/config/modes', { standalone: true });
    const after = await sim.api.ok('/api/config/modes', { receiver: true });
    expect(after).toMatchObject({ mode: 'receiver', modes: { standalone: false, receiver: true } });
  });

  it('bad network fields get 422 naming each field, and change nothing', async () => {
    const res = await sim.api.post('/api/config/network', {
      port: 70000,
      target_ip: '10.0.0.300',
      efb_target_ips: ['1.2.3'],
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/port/);
    expect(res.body.detail).toMatch(/target_ip/);
    expect(res.body.detail).toMatch(/efb_target_ips/);
    // One message per bad field, each naming it.
    const messages = res.body.messages as string[];
    expect(messages).toHaveLength(3);
    expect(messages.map((m) => m.split(':')[0]).sort()).toEqual(['efb_target_ips.0', 'port', 'target_ip']);
    expect(messages.join('; ')).toBe(res.body.detail);
    const status = await sim.api.get('/api/status');
    expect((status.body.network as Record<string, unknown>).port).toBe(12000);
  });

  it('unknown fields and malformed JSON are refused', async () => {
    expect((await sim.api.post('/api/config/nmea', { gpxyz: true })).status).toBe(422);
    const res = await fetch(`${sim.url}/api/config/nmea`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: sim.api.cookie! },
      body: '{"gpgga": ',
    });
    expect(res.status).toBe(400);
  });
});
