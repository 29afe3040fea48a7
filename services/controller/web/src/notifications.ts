/** Notification channels, groups and per-event settings, as the controller's notifier API has them. */
export interface Channel {
  id: number;
  name: string;
  channel_type: string;
  config: Record<string, unknown>;
  enabled: boolean;
}
export interface Group {
  id: number;
  name: string;
  description: string;
  channel_ids: number[];
  enabled: boolean;
}
export interface EventSetting {
  event: string;
  configured: boolean;
  enabled: boolean;
  channel_ids: number[];
  group_ids: number[];
  title_template: string;
  body_template: string;
}
export interface SendResult {
  results: { channel_id: number; status: string; error: string | null }[];
}

/** A refusal of every channel in a send shows as an error with the notifier's reasons. */
export function checkSent(r: SendResult): void {
  const failed = r.results.filter((x) => x.status === 'failed');
  if (failed.length)
    throw new Error(failed.map((f) => `channel ${f.channel_id}: ${f.error ?? 'failed'}`).join('; '));
}
