import type { OperatingMode } from '@outpost/contracts';
import type { Clock, Logger } from '@outpost/runtime';
import { expandTargets } from '../domain/start-validation.js';
import { EfbOutput } from '../io/efb-output.js';
import { SerialOutput } from '../io/serial-output.js';
import { TcpSender } from '../io/tcp-sender.js';
import { listenTcp } from '../io/tcp-listener.js';
import { type Listener, listenUdp } from '../io/udp-listener.js';
import { UdpSender, type UdpTarget } from '../io/udp-sender.js';
import { activeMode, type Settings } from './settings.js';

export interface RunEnvironment {
  clock: Clock;
  logger: Logger;
  efbPort: number;
  gdl90Port: number;
  listenHost: string;
  /** The TCP receiver's limits (RECEIVER_TCP_*); unset: the listener's defaults. */
  receiverTcp?: { idleTimeoutMs: number; maxPerIp: number };
  /** A runtime problem of one output (device unplugged, connection lost) or its recovery. */
  onOutputStatus: (output: 'usb' | 'sender', error: string | null) => void;
  /** One received message (datagram or line) with where it came from. */
  onMessage: (text: string, from: string) => void;
  onOversize: (from: string) => void;
}

/** Which outputs a mode drives, from the settings (the validation has already run). */
export interface RunPlan {
  mode: OperatingMode;
  generates: boolean;
  usb: boolean;
  efb: boolean;
  gdl90: boolean;
  sender: boolean;
  listen: boolean;
  retransmit: boolean;
}

export function planRun(settings: Settings): RunPlan | null {
  const mode = activeMode(settings.modes);
  if (!mode) return null;
  const net = settings.network;
  const efbMode = mode !== 'receiver';
  const efbTargets = net.efb_broadcast || net.efb_ip_enabled;
  return {
    mode,
    generates: mode === 'standalone' || mode === 'sender',
    usb: settings.modes.usb_output || (mode === 'rebroadcaster' && net.rebroadcast_usb),
    efb: efbMode && net.efb_enabled && efbTargets,
    gdl90: efbMode && net.gdl90_enabled && efbTargets,
    sender: mode === 'sender',
    listen: mode === 'receiver' || mode === 'rebroadcaster',
    retransmit: mode === 'rebroadcaster' && net.rebroadcast_udp && net.rebroadcast_udp_ip !== '',
  };
}

/** What each output was opened with; a change of key needs a new socket or device. */
interface OutputKeys {
  usb: string | null;
  listener: string | null;
  sender: string | null;
  efb: string | null;
  gdl90: string | null;
  retransmit: string | null;
}

const NO_KEYS: OutputKeys = {
  usb: null,
  listener: null,
  sender: null,
  efb: null,
  gdl90: null,
  retransmit: null,
};

function keysOf(plan: RunPlan, settings: Settings): OutputKeys {
  const net = settings.network;
  return {
    usb: plan.usb && settings.serial.device ? settings.serial.device : null,
    listener: plan.listen ? `${net.protocol}:${net.listen_port}` : null,
    // A UDP sender's target is only an address on each datagram; a TCP sender is a connection.
    sender: plan.sender ? (net.protocol === 'tcp' ? `tcp:${net.target_ip}:${net.port}` : 'udp') : null,
    efb: plan.efb ? 'udp' : null,
    gdl90: plan.gdl90 ? 'udp' : null,
    retransmit: plan.retransmit ? 'udp' : null,
  };
}

type Opened = Partial<{
  usb: SerialOutput;
  listener: Listener;
  sender: TcpSender | UdpSender;
  efb: EfbOutput;
  gdl90: EfbOutput;
  retransmit: UdpSender;
}>;

/**
 * Everything one run holds open. apply() moves from one plan and settings to the next touching only
 * the outputs whose socket or device must change: it opens the new ones first and, if any fails,
 * closes what it opened and throws, leaving the run as it was. Targets, names and rates are applied
 * in place, so the outputs that do not change never miss a second.
 */
export class RunOutputs {
  serial: SerialOutput | null = null;
  efb: EfbOutput | null = null;
  gdl90: EfbOutput | null = null;
  udpSender: UdpSender | null = null;
  senderTarget: UdpTarget | null = null;
  tcpSender: TcpSender | null = null;
  listener: Listener | null = null;
  retransmit: UdpSender | null = null;
  retransmitTarget: UdpTarget | null = null;
  private keys: OutputKeys = NO_KEYS;

  private constructor(
    public plan: RunPlan,
    private readonly env: RunEnvironment,
  ) {}

  static async open(plan: RunPlan, settings: Settings, env: RunEnvironment): Promise<RunOutputs> {
    const run = new RunOutputs(plan, env);
    await run.apply(plan, settings);
    return run;
  }

  /** Which outputs a move to these settings would reopen (for logs and the answer to a change). */
  changes(plan: RunPlan, settings: Settings): string[] {
    const next = keysOf(plan, settings);
    return (Object.keys(next) as Array<keyof OutputKeys>).filter((k) => next[k] !== this.keys[k]);
  }

  async apply(plan: RunPlan, settings: Settings): Promise<void> {
    const env = this.env;
    const net = settings.network;
    const next = keysOf(plan, settings);
    const changed = (k: keyof OutputKeys) => next[k] !== this.keys[k];
    const opened: Opened = {};
    try {
      if (changed('usb') && next.usb !== null) {
        opened.usb = await SerialOutput.open({
          device: next.usb,
          baudRate: settings.serial.baudrate,
          clock: env.clock,
          logger: env.logger.child({ component: 'usb' }),
          onStatus: (e) => env.onOutputStatus('usb', e),
        });
      }
      if (changed('listener') && next.listener !== null) {
        const opts = {
          port: net.listen_port,
          host: env.listenHost,
          logger: env.logger.child({ component: 'receiver' }),
          onMessage: env.onMessage,
          onOversize: env.onOversize,
        };
        opened.listener =
          net.protocol === 'tcp'
            ? await listenTcp({ ...opts, ...env.receiverTcp, clock: env.clock })
            : await listenUdp(opts);
      }
      if (changed('sender') && next.sender !== null) {
        opened.sender =
          net.protocol === 'tcp'
            ? await TcpSender.connect({
                host: net.target_ip,
                port: net.port,
                clock: env.clock,
                logger: env.logger.child({ component: 'sender' }),
                onStatus: (e) => env.onOutputStatus('sender', e),
              })
            : await UdpSender.create({ logger: env.logger.child({ component: 'sender' }) });
      }
      if (changed('efb') && next.efb !== null) {
        opened.efb = await EfbOutput.create({
          logger: env.logger.child({ component: 'efb' }),
          port: env.efbPort,
          broadcastAddress: null,
          ips: [],
        });
      }
      if (changed('gdl90') && next.gdl90 !== null) {
        opened.gdl90 = await EfbOutput.create({
          logger: env.logger.child({ component: 'gdl90' }),
          port: env.gdl90Port,
          broadcastAddress: null,
          ips: [],
        });
      }
      if (changed('retransmit') && next.retransmit !== null) {
        opened.retransmit = await UdpSender.create({ logger: env.logger.child({ component: 'retransmit' }) });
      }
    } catch (err) {
      await Promise.allSettled(Object.values(opened).map((o) => o.close()));
      throw err;
    }

    // Every new socket is open: swap them in, then close what they replace.
    const closing: Array<Promise<void>> = [];
    if (changed('usb')) {
      if (this.serial) closing.push(this.serial.close());
      this.serial = opened.usb ?? null;
    }
    if (changed('listener')) {
      if (this.listener) closing.push(this.listener.close());
      this.listener = opened.listener ?? null;
    }
    if (changed('sender')) {
      if (this.tcpSender) closing.push(this.tcpSender.close());
      if (this.udpSender) closing.push(this.udpSender.close());
      this.tcpSender = opened.sender instanceof TcpSender ? opened.sender : null;
      this.udpSender = opened.sender instanceof UdpSender ? opened.sender : null;
      if (!this.tcpSender) env.onOutputStatus('sender', null);
    }
    if (changed('efb')) {
      if (this.efb) closing.push(this.efb.close());
      this.efb = opened.efb ?? null;
    }
    if (changed('gdl90')) {
      if (this.gdl90) closing.push(this.gdl90.close());
      this.gdl90 = opened.gdl90 ?? null;
    }
    if (changed('retransmit')) {
      if (this.retransmit) closing.push(this.retransmit.close());
      this.retransmit = opened.retransmit ?? null;
    }
    if (changed('usb') && !this.serial) env.onOutputStatus('usb', null);
    this.keys = next;
    this.plan = plan;

    // What changes in place.
    if (this.serial && this.serial.baud !== settings.serial.baudrate) {
      await this.serial.setBaudRate(settings.serial.baudrate).catch((err: Error) => {
        env.logger.warn({ err: err.message }, 'baud rate change failed');
      });
    }
    this.senderTarget = this.udpSender ? { host: net.target_ip, port: net.port } : null;
    const broadcast = net.efb_broadcast ? net.efb_broadcast_address : null;
    const tablets = net.efb_ip_enabled ? expandTargets(net.efb_target_ips) : [];
    this.efb?.setTargets(broadcast, tablets);
    this.gdl90?.setTargets(broadcast, tablets);
    this.retransmitTarget = this.retransmit
      ? { host: net.rebroadcast_udp_ip, port: net.rebroadcast_udp_port }
      : null;
    await Promise.allSettled(closing);
  }

  async close(): Promise<void> {
    const closing: Array<Promise<void> | undefined> = [
      this.listener?.close(),
      this.serial?.close(),
      this.tcpSender?.close(),
      this.udpSender?.close(),
      this.efb?.close(),
      this.gdl90?.close(),
      this.retransmit?.close(),
    ];
    await Promise.allSettled(closing);
    this.listener = null;
    this.serial = null;
    this.tcpSender = null;
    this.udpSender = null;
    this.efb = null;
    this.gdl90 = null;
    this.retransmit = null;
    this.keys = NO_KEYS;
  }

  /** The sender's payload for one epoch, over the chosen transport. */
  send(lines: readonly string[]): void {
    if (this.tcpSender) this.tcpSender.send(lines.join(''));
    if (this.udpSender && this.senderTarget) {
      for (const line of lines) this.udpSender.send(line, [this.senderTarget]);
    }
  }

  describe(): Record<string, unknown> {
    return {
      usb: this.serial
        ? {
            device: this.serial.device,
            open: this.serial.isOpen,
            bytes_written: this.serial.bytesWritten,
            writes_dropped: this.serial.writesDropped,
            error: this.serial.error,
          }
        : null,
      efb: this.efb
        ? {
            targets: this.efb.targets.map((t) => `${t.host}:${t.port}`),
            datagrams_sent: this.efb.datagramsSent,
            send_errors: this.efb.sendErrors,
          }
        : null,
      gdl90: this.gdl90
        ? {
            targets: this.gdl90.targets.map((t) => `${t.host}:${t.port}`),
            datagrams_sent: this.gdl90.datagramsSent,
            send_errors: this.gdl90.sendErrors,
          }
        : null,
      sender: this.tcpSender
        ? {
            protocol: 'tcp',
            lines_sent: this.tcpSender.linesSent,
            lines_dropped: this.tcpSender.linesDropped,
            error: this.tcpSender.error,
          }
        : this.udpSender && this.senderTarget
          ? {
              protocol: 'udp',
              target: `${this.senderTarget.host}:${this.senderTarget.port}`,
              datagrams_sent: this.udpSender.datagramsSent,
              send_errors: this.udpSender.sendErrors,
            }
          : null,
      retransmit:
        this.retransmit && this.retransmitTarget
          ? {
              target: `${this.retransmitTarget.host}:${this.retransmitTarget.port}`,
              datagrams_sent: this.retransmit.datagramsSent,
              send_errors: this.retransmit.sendErrors,
            }
          : null,
    };
  }
}
