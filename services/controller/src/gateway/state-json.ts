import type { GeneratorController } from '../domain/generator-controller.js';

const serialised = new WeakMap<GeneratorController, { view: object; json: string }>();

/**
 * GET /api/generator/state's body. view() hands back the same object until the state, an input or
 * the clock's millisecond moves, so the JSON is made once per change and every read in between
 * sends the same string.
 */
export function stateJson(ctl: GeneratorController): string {
  const view = ctl.view();
  let last = serialised.get(ctl);
  if (last?.view !== view) {
    last = { view, json: JSON.stringify(view) };
    serialised.set(ctl, last);
  }
  return last.json;
}
