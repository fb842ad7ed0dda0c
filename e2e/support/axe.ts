import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

// axe-core from the registry, read once; evaluated through the DevTools protocol, which the page's
// Content-Security-Policy does not govern, so the console's own policy stays as strict as it ships.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** What axe-core reports of one rule broken: its id, impact and help, with the elements that break it. */
interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: unknown[] }>
}

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now, one line each
 * (`rule: help (elements)`): a test expects none.
 *
 * @example
 * expect(await seriousViolations(page)).toEqual([])
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Violation[] }> } }).axe
    const { violations } = await axe.run(document)
    return violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target }) => ({ target })),
    }))
  })
  return violations
    .filter(({ impact }) => impact === 'serious' || impact === 'critical')
    .map(({ id, help, nodes }) => `${id}: ${help} (${nodes.map(({ target }) => target.join(' ')).join(', ')})`)
}
