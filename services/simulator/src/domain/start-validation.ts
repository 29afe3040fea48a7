/**
 * What must be chosen before the emulator may start. The messages are the ones the web UI shows on
 * a disabled Start button; the server returns the same list so REST clients see the same reasons.
 */

export const START_MESSAGES = Object.freeze({
  mode: 'Select an operating mode',
  airport: 'Select an airport',
  standaloneOutput: 'Select at least one output (USB or EFB)',
  usbDevice: 'Select a USB device',
  senderTargetIp: 'Enter target IP address for NMEA output',
  efbSubOption: 'Select Broadcast or Garmin Pilot/ForeFlight (IP Address)',
  efbSimName: 'Enter a simulator name for EFB output',
  efbTargetIps: 'Enter IP address(es) for EFB output',
  rebroadcastOutput: 'Select at least one rebroadcast output (USB, EFB, or UDP)',
  rebroadcastUsbDevice: 'Select a USB device for rebroadcast',
  rebroadcastUdpIp: 'Enter target IP for UDP retransmit',
});

export interface StartConfig {
  modes: {
    standalone: boolean;
    sender: boolean;
    receiver: boolean;
    rebroadcaster: boolean;
    usb_output: boolean;
  };
  /** The airport selected for this run, or null. */
  airport_icao: string | null;
  /** True when the start position was given another way (DEFAULT_LAT/DEFAULT_LON at auto-start). */
  position_given?: boolean;
  /** The selected USB-serial device; '' or null means none. */
  serial_device: string | null;
  network: {
    protocol: 'udp' | 'tcp';
    target_ip: string;
    efb_enabled: boolean;
    efb_sim_name: string;
    efb_broadcast: boolean;
    efb_ip_enabled: boolean;
    efb_target_ips: string[];
    /** GDL 90 shares the EFB targets, so it needs what XGPS needs. */
    gdl90_enabled?: boolean;
    rebroadcast_usb: boolean;
    rebroadcast_udp: boolean;
    rebroadcast_udp_ip: string;
  };
}

const blank = (s: string | null | undefined): boolean => !s || s.trim() === '';

/**
 * One message per missing choice, in the order the UI checks them; empty when Start may proceed.
 * Receiver and rebroadcaster take their position from the network, so they need no airport.
 * EFB checks apply only to the modes that emit EFB (stand-alone, sender, rebroadcaster), to XGPS
 * and GDL 90 alike.
 */
export function validateStart(cfg: StartConfig): string[] {
  const { modes, network: net } = cfg;
  const out: string[] = [];
  const add = (m: string): void => {
    if (!out.includes(m)) out.push(m);
  };
  const anyMode = modes.standalone || modes.sender || modes.receiver || modes.rebroadcaster;
  const noDevice = blank(cfg.serial_device);

  if (!anyMode) add(START_MESSAGES.mode);
  if (!modes.receiver && !modes.rebroadcaster && blank(cfg.airport_icao) && !cfg.position_given)
    add(START_MESSAGES.airport);
  if (!anyMode) return out;

  const efbMode = modes.standalone || modes.sender || modes.rebroadcaster;
  const efbOn = efbMode && (net.efb_enabled || net.gdl90_enabled === true);
  const efbHasOutput = efbOn && (net.efb_broadcast || net.efb_ip_enabled);

  if (modes.standalone) {
    if (!modes.usb_output && !efbHasOutput) add(START_MESSAGES.standaloneOutput);
    if (modes.usb_output && noDevice) add(START_MESSAGES.usbDevice);
  }
  if (modes.receiver && !modes.standalone && !modes.sender && !modes.rebroadcaster) {
    if (modes.usb_output && noDevice) add(START_MESSAGES.usbDevice);
  }
  if (modes.sender) {
    // A sender always publishes NMEA over UDP or TCP, so its target is always required.
    if (blank(net.target_ip)) add(START_MESSAGES.senderTargetIp);
    if (modes.usb_output && noDevice) add(START_MESSAGES.usbDevice);
  }
  if (efbOn) {
    if (!net.efb_broadcast && !net.efb_ip_enabled) add(START_MESSAGES.efbSubOption);
    if (efbHasOutput && blank(net.efb_sim_name)) add(START_MESSAGES.efbSimName);
    if (net.efb_ip_enabled && expandTargets(net.efb_target_ips).length === 0)
      add(START_MESSAGES.efbTargetIps);
  }
  if (modes.rebroadcaster) {
    const usb = net.rebroadcast_usb || modes.usb_output;
    const udpOk = net.rebroadcast_udp && !blank(net.rebroadcast_udp_ip);
    if (!usb && !efbHasOutput && !udpOk) add(START_MESSAGES.rebroadcastOutput);
    if (usb && noDevice) add(START_MESSAGES.rebroadcastUsbDevice);
    if (net.rebroadcast_udp && blank(net.rebroadcast_udp_ip)) add(START_MESSAGES.rebroadcastUdpIp);
  }
  return out;
}

/** A range expands to at most this many addresses, so a typo cannot fan out to thousands. */
export const MAX_RANGE_ADDRESSES = 256;

function parseIpv4(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let v = 0;
  for (const p of parts) {
    if (p.length === 0 || p.length > 3) return null;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return null;
    }
    const n = Number(p);
    if (n > 255) return null;
    v = v * 256 + n;
  }
  return v;
}

function ipv4ToString(v: number): string {
  return `${Math.floor(v / 16777216) % 256}.${Math.floor(v / 65536) % 256}.${Math.floor(v / 256) % 256}.${v % 256}`;
}

/**
 * EFB target entries to addresses. Accepts `a.b.c.d`, last-octet ranges `a.b.c.10-20` and full
 * ranges `a.b.c.10-a.b.c.20`; entries may also hold comma-separated lists. Invalid entries and
 * reversed ranges are dropped; a range wider than MAX_RANGE_ADDRESSES is cut at that many.
 * The result is de-duplicated in first-seen order.
 */
export function expandTargets(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const push = (ip: string): void => {
    if (!seen.has(ip)) {
      seen.add(ip);
      out.push(ip);
    }
  };
  for (const entry of entries) {
    if (typeof entry !== 'string') continue;
    for (const raw of entry.split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const dash = item.indexOf('-');
      if (dash === -1) {
        const v = parseIpv4(item);
        if (v !== null) push(ipv4ToString(v));
        continue;
      }
      const left = item.slice(0, dash).trim();
      const right = item.slice(dash + 1).trim();
      const start = parseIpv4(left);
      if (start === null) continue;
      let end: number | null;
      if (right.includes('.')) {
        end = parseIpv4(right);
      } else {
        const last = parseIpv4(`0.0.0.${right}`);
        end = last === null ? null : start - (start % 256) + last;
      }
      if (end === null || end < start) continue;
      const stop = Math.min(end, start + MAX_RANGE_ADDRESSES - 1);
      for (let v = start; v <= stop; v++) push(ipv4ToString(v));
    }
  }
  return out;
}
