import type { Clock, Logger } from '@outpost/runtime';
import { expandTargets } from '../domain/start-validation.js';
import { EfbOutput } from '../io/efb-output.js';
import { SerialOutput } from '../io/serial-output.js';
import { TcpSender } from '../io/tcp-sender.js';
import { listenTcp } from '../io/tcp-listener.js';
import { type Listener, listenUdp } from '../io/udp-listener.js';
import { UdpSender, type UdpTarget } from '../io/udp-sender.js';
import { activeMode, type OperatingModeName, type Settings } from './settings.js';

export interface RunEnvironment {
  clock: Clock;
  logger: Logger;
  efbPort: number;
  listenHost: string;
  /** A runtime problem of one output (device unplugged, connection lost) or its recovery. */
  onOutputStatus: (output: 'usb' | 'sender', error: string | null) => void;
  /** One received message (datagram or line) with where it came from. */
  onMessage: (text: string, from: string) => void;
  onOversize: (from: string) => void;
}

/** Which outputs a mode drives, from the settings (the validation has already run). */
export interface RunPlan {
  mode: OperatingModeName;
  generates: boolean;
  usb: boolean;
  efb: boolean;
  sender: boolean;
  listen: boolean;
  retransmit: boolean;
}

export function planRun(settings: Settings): RunPlan | null {
  const mode = activeMode(settings.modes);
  if (!mode) return null;
  const net = settings.network;
  const efbMode = mode !== 'receiver';
  return {
    mode,
    generates: mode === 'standalone' || mode === 'sender',
    usb: settings.modes.usb_output || (mode === 'rebroadcaster' && net.rebroadcast_usb),
    efb: efbMode && net.efb_enabled && (net.efb_broadcast || net.efb_ip_enabled),
    sender: mode === 'sender',
    listen: mode === 'receiver' || mode === 'rebroadcaster',
    retransmit: mode === 'rebroadcaster' && net.rebroadcast_udp && net.rebroadcast_udp_ip !== '',
  };
}

/**
 * Everything one run holds open. open() acquires in order and, if any step fails, releases what it
 * already had before rethrowing, so a refused start leaves no port or device behind.
 */
export class RunOutputs {
  serial: SerialOutput | null = null;
  efb: EfbOutput | null = null;
  udpSender: UdpSender | null = null;
  senderTarget: UdpTarget | null = null;
  tcpSender: TcpSender | null = null;
  listener: Listener | null = null;
  retransmit: UdpSender | null = null;
  retransmitTarget: UdpTarget | null = null;

  private constructor(readonly plan: RunPlan) {}

  static async open(plan: RunPlan, settings: Settings, env: RunEnvironment): Promise<RunOutputs> {
    const run = new RunOutputs(plan);
    const net = settings.network;
    try {
      if (plan.usb && settings.serial.device) {
        run.serial = await SerialOutput.open({
          device: settings.serial.device,
          baudRate: settings.serial.baudrate,
          clock: env.clock,
          logger: env.logger.child({ component: 'usb' }),
          onStatus: (e) => env.onOutputStatus('usb', e),
        });
      }
      if (plan.listen) {
        const opts = {
          port: net.listen_port,
          host: env.listenHost,
          logger: env.logger.child({ component: 'receiver' }),
          onMessage: env.onMessage,
          onOversize: env.onOversize,
        };
        run.listener = net.protocol === 'tcp' ? await listenTcp(opts) : await listenUdp(opts);
      }
      if (plan.sender) {
        if (net.protocol === 'tcp') {
          run.tcpSender = await TcpSender.connect({
            host: net.target_ip,
            port: net.port,
            clock: env.clock,
            logger: env.logger.child({ component: 'sender' }),
            onStatus: (e) => env.onOutputStatus('sender', e),
          });
        } else {
          run.udpSender = await UdpSender.create({ logger: env.logger.child({ component: 'sender' }) });
          run.senderTarget = { host: net.target_ip, port: net.port };
        }
      }
      if (plan.efb) {
        run.efb = await EfbOutput.create({
          logger: env.logger.child({ component: 'efb' }),
          port: env.efbPort,
          broadcastAddress: net.efb_broadcast ? net.efb_broadcast_address : null,
          ips: net.efb_ip_enabled ? expandTargets(net.efb_target_ips) : [],
        });
      }
      if (plan.retransmit) {
        run.retransmit = await UdpSender.create({ logger: env.logger.child({ component: 'retransmit' }) });
        run.retransmitTarget = { host: net.rebroadcast_udp_ip, port: net.rebroadcast_udp_port };
      }
      return run;
    } catch (err) {
      await run.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const closing: Array<Promise<void> | undefined> = [
      this.listener?.close(),
      this.serial?.close(),
      this.tcpSender?.close(),
      this.udpSender?.close(),
      this.efb?.close(),
      this.retransmit?.close(),
    ];
    await Promise.allSettled(closing);
    this.listener = null;
    this.serial = null;
    this.tcpSender = null;
    this.udpSender = null;
    this.efb = null;
    this.retransmit = null;
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
