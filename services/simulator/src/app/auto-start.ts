import { simulator } from '@outpost/contracts';
import type { SimulatorConfig } from '../config.js';
import { expandTargets, START_MESSAGES } from '../domain/start-validation.js';
import type { SimulatorService } from './simulator-service.js';

/** Which variable answers each start message when the choice comes from the environment. */
const HINTS: Record<string, string> = {
  [START_MESSAGES.airport]: 'set AUTO_START_AIRPORT, or DEFAULT_LAT and DEFAULT_LON',
  [START_MESSAGES.standaloneOutput]:
    'set AUTO_START_USB_ENABLED, AUTO_START_EFB_ENABLED or AUTO_START_GDL90_ENABLED',
  [START_MESSAGES.usbDevice]: 'set AUTO_START_USB_DEVICE',
  [START_MESSAGES.rebroadcastUsbDevice]: 'set AUTO_START_USB_DEVICE',
  [START_MESSAGES.senderTargetIp]: 'set AUTO_START_TARGET_IP',
  [START_MESSAGES.efbSubOption]: 'set AUTO_START_EFB_BROADCAST or AUTO_START_EFB_TARGET_IPS',
  [START_MESSAGES.efbSimName]: 'set AUTO_START_EFB_SIM_NAME',
  [START_MESSAGES.efbTargetIps]: 'set AUTO_START_EFB_TARGET_IPS',
  [START_MESSAGES.rebroadcastOutput]:
    'set AUTO_START_USB_ENABLED, AUTO_START_EFB_ENABLED, AUTO_START_GDL90_ENABLED or AUTO_START_UDP_RETRANSMIT',
  [START_MESSAGES.rebroadcastUdpIp]: 'set AUTO_START_UDP_RETRANSMIT_IP',
};

type AutoStartEnv = Pick<
  SimulatorConfig,
  | 'AUTO_START_MODE'
  | 'AUTO_START_LISTEN_PORT'
  | 'AUTO_START_PROTOCOL'
  | 'AUTO_START_EFB_ENABLED'
  | 'AUTO_START_EFB_BROADCAST'
  | 'AUTO_START_EFB_TARGET_IPS'
  | 'AUTO_START_EFB_SIM_NAME'
  | 'AUTO_START_GDL90_ENABLED'
  | 'AUTO_START_USB_ENABLED'
  | 'AUTO_START_USB_DEVICE'
  | 'AUTO_START_UDP_RETRANSMIT'
  | 'AUTO_START_UDP_RETRANSMIT_IP'
  | 'AUTO_START_UDP_RETRANSMIT_PORT'
  | 'AUTO_START_TARGET_IP'
  | 'AUTO_START_TARGET_PORT'
  | 'AUTO_START_AIRPORT'
  | 'EFB_SIM_NAME'
  | 'SERIAL_BAUDRATE'
>;

/** What applyAutoStart found: nothing to do, ready to start, or the one line that says why not. */
export type AutoStartPlan =
  | { mode: null }
  | { mode: string; ready: true }
  | { mode: string; ready: false; reason: string };

/**
 * Turns AUTO_START_* into the same settings a user would click, then checks them with the same start
 * validation. Without AUTO_START_AIRPORT, a stand-alone or sender run starts at DEFAULT_LAT/DEFAULT_LON.
 * A missing or invalid value is reported, never thrown: the service stays up, stopped, and says why.
 * Opens nothing.
 */
export async function applyAutoStart(env: AutoStartEnv, service: SimulatorService): Promise<AutoStartPlan> {
  const mode = env.AUTO_START_MODE;
  if (!mode) return { mode: null };
  const prefix = `AUTO_START_MODE=${mode} cannot start`;
  const refuse = (why: string): AutoStartPlan => ({ mode, ready: false, reason: `${prefix}: ${why}` });
  const ips = env.AUTO_START_EFB_TARGET_IPS.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const bad = ips.filter((ip) => expandTargets([ip]).length === 0);
  if (bad.length > 0) return refuse(`AUTO_START_EFB_TARGET_IPS has invalid entries: ${bad.join(', ')}`);
  if (
    env.AUTO_START_USB_DEVICE !== '' &&
    !simulator.SerialDevicePath.safeParse(env.AUTO_START_USB_DEVICE).success
  ) {
    return refuse('AUTO_START_USB_DEVICE must be a /dev/ path');
  }

  await service.setModes({ [mode]: true, usb_output: env.AUTO_START_USB_ENABLED });
  await service.setSerial({ baudrate: env.SERIAL_BAUDRATE });
  if (env.AUTO_START_USB_DEVICE !== '') await service.setSerial({ device: env.AUTO_START_USB_DEVICE });
  await service.setNetwork({
    protocol: env.AUTO_START_PROTOCOL,
    listen_port: env.AUTO_START_LISTEN_PORT,
    target_ip: env.AUTO_START_TARGET_IP,
    port: env.AUTO_START_TARGET_PORT,
    efb_enabled: env.AUTO_START_EFB_ENABLED,
    efb_broadcast: env.AUTO_START_EFB_BROADCAST,
    efb_ip_enabled: ips.length > 0,
    efb_target_ips: ips,
    efb_sim_name: env.AUTO_START_EFB_SIM_NAME || env.EFB_SIM_NAME,
    gdl90_enabled: env.AUTO_START_GDL90_ENABLED,
    rebroadcast_usb: mode === 'rebroadcaster' && env.AUTO_START_USB_ENABLED,
    rebroadcast_udp: env.AUTO_START_UDP_RETRANSMIT,
    rebroadcast_udp_ip: env.AUTO_START_UDP_RETRANSMIT_IP,
    rebroadcast_udp_port: env.AUTO_START_UDP_RETRANSMIT_PORT,
  });
  if (env.AUTO_START_AIRPORT !== '') {
    try {
      service.setPosition({ airport_icao: env.AUTO_START_AIRPORT });
    } catch {
      return refuse(`AUTO_START_AIRPORT ${env.AUTO_START_AIRPORT} is not in the airport database`);
    }
  } else {
    // The spec's start position: the engine already stands at DEFAULT_LAT/DEFAULT_LON/DEFAULT_ALT_FT.
    service.useConfiguredStartPosition();
  }
  const messages = service.validationMessages().map((m) => (HINTS[m] ? `${m} (${HINTS[m]})` : m));
  if (messages.length > 0) return refuse(messages.join('; '));
  return { mode, ready: true };
}
