/** One-shot child of the launcher: answers with the launch plan (see launch-plan.ts). */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLaunchError, makeLaunchPlan } from './launch-plan.js';
import { serveOneShot } from './one-shot.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

serveOneShot<{ argv: string[] }, Awaited<ReturnType<typeof makeLaunchPlan>>>(
  ({ argv }) => makeLaunchPlan(root, argv, process.env, (text) => process.stdout.write(text)),
  isLaunchError,
);
