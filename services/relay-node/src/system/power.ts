import type { SystemBus } from './dbus.js';

/** Reboot and power-off through systemd-logind on the system bus (no shell, no sudo). */
export interface PowerControl {
  reboot(): Promise<void>;
  powerOff(): Promise<void>;
}

const LOGIND = 'org.freedesktop.login1';
const PATH = '/org/freedesktop/login1';
const MANAGER = 'org.freedesktop.login1.Manager';

export class LogindPower implements PowerControl {
  constructor(private readonly bus: SystemBus) {}

  async reboot(): Promise<void> {
    await this.bus.call(LOGIND, PATH, MANAGER, 'Reboot', 'b', [false]);
  }

  async powerOff(): Promise<void> {
    await this.bus.call(LOGIND, PATH, MANAGER, 'PowerOff', 'b', [false]);
  }
}

/** Mock hardware: a development machine must never be rebooted by the node. */
export class RecordingPower implements PowerControl {
  readonly calls: Array<'reboot' | 'poweroff'> = [];
  async reboot(): Promise<void> {
    this.calls.push('reboot');
  }
  async powerOff(): Promise<void> {
    this.calls.push('poweroff');
  }
}
