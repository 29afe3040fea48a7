// Accessibility checks for the consoles' browser tests: axe-core, from this repository's node_modules,
// run inside the page against WCAG 2.0 and 2.1, levels A and AA.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** The rule sets a console must pass: WCAG 2.0 and 2.1, A and AA. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

let source: string | null = null;
function axeSource(): string {
  source ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}

interface AxeNode {
  target: unknown[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: AxeNode[];
}

/**
 * Runs axe-core on what the page shows now and answers one readable line block per violation (rule,
 * impact, what to fix, each offending element with its selector and markup), [] when it passes.
 * The script is evaluated over the DevTools protocol, so the consoles' Content-Security-Policy, which
 * refuses inline scripts, does not have to be loosened for it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate<boolean>('typeof globalThis.axe === "object"');
  if (!loaded) await page.evaluate(axeSource());
  const violations = await page.evaluate<AxeViolation[], readonly string[]>(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } })
      .axe;
    const doc = (globalThis as unknown as { document: unknown }).document;
    const r = (await axe.run(doc, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    })) as { violations: AxeViolation[] };
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    }));
  }, WCAG_TAGS);
  return violations.map((v) => {
    const nodes = v.nodes.map(
      (n) =>
        `    ${n.target.join(' ')}\n      ${n.html.slice(0, 200)}\n      ${(n.failureSummary ?? '').replace(/\n/g, '\n      ')}`,
    );
    return `${v.id} (${v.impact ?? 'n/a'}): ${v.help}\n${nodes.join('\n')}`;
  });
}

/**
 * Checks the page and records what it finds under `label` (the page and theme), so one test can walk
 * every page and report all of them at once: `expect(report.failures).toEqual([])` then prints each.
 */
export class AxeReport {
  readonly failures: string[] = [];
  readonly checked: string[] = [];

  async check(page: Page, label: string): Promise<void> {
    this.checked.push(label);
    for (const v of await axeViolations(page)) this.failures.push(`${label}: ${v}`);
  }
}
