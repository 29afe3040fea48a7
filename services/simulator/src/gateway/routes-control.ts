import type { OpenAPIHono } from '@hono/zod-openapi';
import { simulator } from '@outpost/contracts';
import type { SimulatorService } from '../app/simulator-service.js';
import type { SerialDevice } from '../io/serial-devices.js';
import { input, jsonRoute } from './openapi.js';

export interface ControlDeps {
  service: SimulatorService;
  listDevices: () => Promise<SerialDevice[]>;
}

const Status = simulator.SimulatorStatus;

/** Settings change while running; these are the cases where they cannot. */
const LIVE_409 =
  'The change cannot be applied now: the emulator is starting, it could not keep running with the change (detail names the missing values, messages lists them), or a reopened output failed (banner; the previous settings stay in effect)';

export function controlRoutes(app: OpenAPIHono, { service, listDevices }: ControlDeps): void {
  const ok = (c: Parameters<Parameters<typeof jsonRoute>[2]>[0]) => c.json(service.status(), 200);

  jsonRoute(
    app,
    { method: 'get', path: '/api/status', summary: 'Full state', tags: ['status'], response: Status },
    (c) => ok(c),
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/control',
      summary: 'Start or stop the emulator',
      tags: ['control'],
      body: simulator.ControlRequest,
      response: Status,
      errors: {
        409: 'Already running, or a server error at start (serial port, address in use, connection refused): detail and banner are the banner',
      },
    },
    async (c) => {
      const { action } = input<{ action: 'start' | 'stop' }>(c, 'json');
      if (action === 'start') await service.start();
      else await service.stop();
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/position',
      summary: 'Set position values or select an airport',
      tags: ['control'],
      body: simulator.PositionUpdate,
      response: Status,
      errors: {
        404: 'Unknown airport code',
        409: 'A flight plan is being flown (DELETE /api/flightplan first)',
      },
    },
    (c) => {
      service.setPosition(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/position/runway',
      summary:
        "Line up on a runway: the aircraft is placed on the named end's threshold, stopped on the ground (threshold or field elevation), heading the runway's true heading",
      tags: ['control'],
      body: simulator.LineUpRequest,
      response: Status,
      errors: {
        404: 'Unknown airport code',
        409: 'A flight plan is being flown (DELETE /api/flightplan first)',
      },
    },
    (c) => {
      service.lineUp(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/config/modes',
      summary: 'Operating mode (one of four) and USB output',
      tags: ['config'],
      body: simulator.ModeFlags,
      response: Status,
      errors: { 409: LIVE_409 },
    },
    async (c) => {
      await service.setModes(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/config/network',
      summary: 'Sender, receiver, EFB and rebroadcaster network fields',
      tags: ['config'],
      body: simulator.NetworkConfig,
      response: Status,
      errors: { 409: LIVE_409 },
    },
    async (c) => {
      await service.setNetwork(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/config/nmea',
      summary: 'NMEA sentence selection (applies from the next second)',
      tags: ['config'],
      body: simulator.NmeaSelection,
      response: Status,
    },
    async (c) => {
      await service.setNmea(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/config/rates',
      summary: 'Ramp rates of altitude, speed and heading (apply from the next second, even while running)',
      tags: ['config'],
      body: simulator.RampRates,
      response: Status,
    },
    (c) => {
      service.setRates(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/config/serial',
      summary: 'Serial device and baud rate',
      tags: ['serial'],
      body: simulator.SerialConfig,
      response: Status,
      errors: { 409: LIVE_409 },
    },
    async (c) => {
      await service.setSerial(input(c, 'json'));
      return ok(c);
    },
  );

  jsonRoute(
    app,
    {
      method: 'get',
      path: '/api/serial/devices',
      summary: 'USB-serial devices visible to the service',
      tags: ['serial'],
      response: simulator.SerialDevicesResponse,
    },
    async (c) => c.json({ devices: await listDevices() }, 200),
  );

  jsonRoute(
    app,
    {
      method: 'post',
      path: '/api/serial/select',
      summary: 'Select a USB-serial device',
      tags: ['serial'],
      body: simulator.SerialSelect,
      response: Status,
      errors: { 409: LIVE_409 },
    },
    async (c) => {
      const { device } = input<{ device: string }>(c, 'json');
      await service.setSerial({ device });
      return ok(c);
    },
  );
}
