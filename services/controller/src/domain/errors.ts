/** Why a request was refused; the gateway maps `kind` to an HTTP status. */
export type RefusalCode =
  | 'already_running'
  | 'epo'
  | 'quiet'
  | 'not_armed'
  | 'lockout'
  | 'cooldown'
  | 'force_stop'
  | 'relay_unavailable'
  | 'genset_stop'
  | 'genset_shutdown'
  | 'db_unavailable'
  | 'not_quiet'
  | 'not_locked_out'
  | 'invalid';

export const REFUSAL_MESSAGES = {
  not_armed: 'Cannot start - automation is not armed',
  epo: 'Cannot start - hardware safety (EPO) is engaged at the relay node',
  already_running: 'Cannot start - generator is already running',
  quiet: 'Cannot start - HOA selector is in Quiet',
  lockout: 'Cannot start - runtime lockout is active; acknowledge it with POST /api/generator/clear-lockout',
  force_stop: 'Cannot start - force_stop override is active',
  relay_unavailable: 'Cannot start - the relay node link (MQTT broker) is unavailable',
  relay_node_disconnected: 'Cannot start - the relay node is not connected; waiting for it',
  db_unavailable: 'Cannot start - the database is unavailable',
  genset_stop:
    "Cannot start - the generator's own controller is in Stop mode: closing the start relay would do nothing; turn its mode selector to Auto",
  genset_shutdown:
    "Cannot start - the generator's own controller has a shutdown alarm standing; find the cause and reset the alarm at the controller",
} as const;

export class DomainError extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
