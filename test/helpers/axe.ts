import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the pages' CSP rightly refuses an injected <script>.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async () =>
      (
        await (
          window as unknown as { axe: { run: (context: Document) => Promise<{ violations: AxeViolation[] }> } }
        ).axe.run(document)
      ).violations,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

/** True when nothing overflows a viewport of `width` pixels sideways. */
export const fitsWidth = (page: Page, width = 375) =>
  page.evaluate((w) => document.scrollingElement!.scrollWidth <= w, width);

/** Every axe-core violation of the page as it is now, whatever its impact. */
export async function allViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(
    async () =>
      (
        await (
          window as unknown as { axe: { run: (context: Document) => Promise<{ violations: AxeViolation[] }> } }
        ).axe.run(document)
      ).violations,
  );
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}
