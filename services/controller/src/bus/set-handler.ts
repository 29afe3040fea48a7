import { generator } from '@outpost/contracts';
import { DomainError } from '../domain/errors.js';
import type { GeneratorController } from '../domain/generator-controller.js';
import type { Actor, DomainLogger } from '../domain/types.js';

export interface SetResult {
  ok: boolean;
  message: string;
}

/** Service reminders as a set command reaches them: one item, or every item due now; how many. */
export type MaintenanceDone = (actor: Actor, itemId?: number) => Promise<number>;

/**
 * Applies a controller/<id>/set command through the same gates and messages as the REST API, if the
 * automation accounts may send it at all (AUTOMATION_COMMANDS).
 */
export async function applySetCommand(
  controller: GeneratorController,
  cmd: generator.ControllerSetCommand,
  actor: Actor,
  logger: DomainLogger,
  allowed: ReadonlySet<generator.AutomationCommand> = new Set(generator.DEFAULT_AUTOMATION_COMMANDS),
  maintenanceDone?: MaintenanceDone,
): Promise<SetResult> {
  const name = generator.automationCommandOf(cmd);
  if (!allowed.has(name)) {
    const message = `Command ${name} is not allowed for automation (AUTOMATION_COMMANDS)`;
    logger.warn({ command: name, who: actor.who, from: actor.from }, message);
    return { ok: false, message };
  }
  try {
    switch (cmd.command) {
      case 'start': {
        const out = await controller.start({
          trigger: 'manual',
          actor,
          duration_minutes: cmd.duration_minutes,
          notes: cmd.notes,
        });
        return { ok: true, message: `Generator started (run ${out.run_id})` };
      }
      case 'stop': {
        const out = await controller.stop('manual', actor, cmd.reason ?? null);
        return {
          ok: true,
          message: out.was_running ? 'Generator stopped' : 'Generator was not running; relay OFF re-sent',
        };
      }
      case 'arm':
        await controller.arm(actor);
        return { ok: true, message: 'Relay armed' };
      case 'disarm':
        await controller.disarm(actor);
        return { ok: true, message: 'Relay disarmed' };
      case 'override':
        if (cmd.override_type === null) await controller.disableOverride(actor);
        else await controller.enableOverride(cmd.override_type, actor);
        return { ok: true, message: `Override ${cmd.override_type ?? 'disabled'}` };
      case 'clear_lockout': {
        const out = await controller.clearLockout(actor);
        return { ok: true, message: out.cleared ? 'Lockout cleared' : 'No lockout was active' };
      }
      case 'maintenance_done': {
        if (!maintenanceDone) return { ok: false, message: 'Maintenance is not available here' };
        const count = await maintenanceDone(actor, cmd.item_id);
        return { ok: true, message: `${count} maintenance item(s) marked done` };
      }
    }
  } catch (err) {
    if (err instanceof DomainError) {
      logger.warn({ command: cmd.command, who: actor.who, from: actor.from }, err.message);
      return { ok: false, message: err.message };
    }
    logger.error({ err, command: cmd.command }, 'set command failed');
    return { ok: false, message: 'Internal error' };
  }
}
