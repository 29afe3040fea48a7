import { ensureBuilt } from './build.js';

export default function setup(): void {
  ensureBuilt();
}
