import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { relaynode } from '@outpost/contracts';
import { writePrivateFile } from '@outpost/runtime/private-file';
import { z } from 'zod';

/**
 * The node's few settings in one small JSON file (ARCHITECTURE.md: the relay node keeps no database).
 * Written atomically (temp file, fsync, rename) so a power cut leaves either the old or the new file.
 */

export const DEFAULT_COOLDOWN_MINUTES = 5;

export const NodeSettings = z.object({
  /** null: use NOTIFIER_URLS from the environment. */
  notifier_urls: z.array(z.string()).nullable().default(null),
  failsafe_cooldown_minutes: z.number().int().nonnegative().default(DEFAULT_COOLDOWN_MINUTES),
  restored_cooldown_minutes: z.number().int().nonnegative().default(DEFAULT_COOLDOWN_MINUTES),
  reboot_schedule: relaynode.RebootSchedule.default({ enabled: false, day: 'daily', hour: 3, minute: 0 }),
  /** Last time each notification went out (ms), so cooldowns survive a restart. */
  last_notified: z.record(z.string(), z.number()).default({}),
  /** Local day (YYYY-MM-DD) whose scheduled reboot was already handled (done or skipped). */
  reboot_handled_day: z.string().nullable().default(null),
});
export type NodeSettings = z.infer<typeof NodeSettings>;

export class SettingsStore {
  private current: NodeSettings;

  constructor(
    readonly path: string,
    private readonly onProblem: (msg: string) => void = () => {},
  ) {
    this.current = this.load();
  }

  get(): NodeSettings {
    return this.current;
  }

  update(patch: Partial<NodeSettings>): NodeSettings {
    const next = NodeSettings.parse({ ...this.current, ...patch });
    writeAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
    this.current = next;
    return next;
  }

  private load(): NodeSettings {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return NodeSettings.parse({});
    }
    try {
      return NodeSettings.parse(JSON.parse(text));
    } catch (err) {
      this.onProblem(`settings file ${this.path} unreadable (${(err as Error).message}); using defaults`);
      return NodeSettings.parse({});
    }
  }
}

export function writeAtomic(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  // A random O_EXCL | O_NOFOLLOW temporary file, synced and renamed, then the folder synced.
  writePrivateFile(path, data, 0o600);
}
