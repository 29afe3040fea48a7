import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NODE_ARGS, startChild } from '../src/children.js';

const dir = mkdtempSync(join(tmpdir(), 'children-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `name` on a script that prints the Node flags it runs with, and returns them. */
async function flagsOf(name: string): Promise<string[]> {
  const script = join(dir, `${name}.mjs`);
  writeFileSync(script, 'console.log(JSON.stringify(process.execArgv));\n');
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    const child = startChild(name, script, { PATH: process.env.PATH }, dir);
    expect(await child.exited).toBe(0);
    // The output lines arrive through readline, after the exit at the latest by a tick.
    await new Promise((r) => setTimeout(r, 50));
  } finally {
    write.mockRestore();
  }
  const line = lines.find((l) => l.includes('['));
  return JSON.parse(line!.slice(line!.indexOf('['))) as string[];
}

describe('startChild', () => {
  it('runs each service with its own V8 settings', async () => {
    for (const name of ['controller', 'relay-node', 'notifier', 'simulator', 'dashboard']) {
      expect(await flagsOf(name), name).toEqual(NODE_ARGS[name]);
      expect(NODE_ARGS[name], name).toContain('--max-semi-space-size=1');
    }
  });

  it('runs the broker with V8 defaults', async () => {
    expect(await flagsOf('broker')).toEqual([]);
  });
});
