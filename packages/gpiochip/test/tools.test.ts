import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { spawnTiedToParent, TOOL_MISSING } from '../src/tools.js';

const TOOLS = new URL('../dist/tools.js', import.meta.url).pathname;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the gpiod tools as helper processes', () => {
  it('a helper dies with a service killed outright, so no gpioset keeps a relay ON for a dead node', async () => {
    // The service: starts a long-lived helper the way the plugin starts gpioset, prints its pid, waits.
    const service = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { spawnTiedToParent } from ${JSON.stringify(TOOLS)};
         const h = spawnTiedToParent('sleep', ['60']);
         h.on('spawn', () => console.log(h.pid));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [first] = (await once(service.stdout!, 'data')) as [Buffer];
    const helper = Number(first.toString().trim());
    expect(alive(helper)).toBe(true);
    service.kill('SIGKILL');
    await until(() => !alive(helper));
  });

  it('a program that is not installed exits with the "missing" status the plugin turns into "apt install gpiod"', async () => {
    const p = spawnTiedToParent('outpost-no-such-gpio-tool', []);
    const [code] = (await once(p, 'exit')) as [number | null];
    expect(code).toBe(TOOL_MISSING);
  });
});
