import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Where the screenshots go: one per view, to look at after a run. */
export const ARTIFACTS = resolve(import.meta.dirname, '../artifacts')

/**
 * Debian's chromium (or CHROMIUM_PATH), headless; `args` are Chromium's switches beside the usual ones.
 *
 * @example
 * const browser = await launchChromium()
 */
export function launchChromium({ args = [] }: { args?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...args,
    ],
  })
}

/**
 * A fresh page (no service worker, no storage) that reads dates in UTC and
 * en-US, so the views look the same everywhere.
 *
 * @example
 * const page = await newPage(browser)
 */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    timezoneId: 'UTC',
    locale: 'en-US',
    viewport: { width: 1280, height: 860 },
  })
  const page = await context.newPage()
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`))
  return page
}

/** The uncaught errors of every page so far: a test takes them with `pageErrors.splice(0)` and expects none. */
export const pageErrors: string[] = []

/**
 * Saves a screenshot of the whole page as `<name>.png` in the artifacts folder.
 *
 * @example
 * await screenshot(page, 'app-inbox') // e2e/artifacts/app-inbox.png
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: resolve(ARTIFACTS, `${name}.png`), fullPage: true })
}

/**
 * How many copies of MSW's request handler class the scripts carry (a
 * message of `HttpHandler`'s, once per copy).
 *
 * @example
 * expect(mswCopies(await scripts())).toBe(1)
 */
export function mswCopies(scripts: string[]): number {
  return scripts.reduce(
    (count, text) => count + text.split('Found a redundant usage of query parameters').length - 1,
    0,
  )
}

/**
 * What the service worker controlling the page says it is: msw's worker
 * script answers `INTEGRITY_CHECK_REQUEST` with its package version and the
 * checksum msw's client compares with its own.
 *
 * @example
 * expect(await workerIntegrity(page)).toEqual({ packageVersion: '3.0.5', checksum: '0bd5…' })
 */
export function workerIntegrity(page: Page): Promise<{ packageVersion: string; checksum: string }> {
  return page.evaluate(
    () =>
      new Promise((answered) => {
        const listener = (event: MessageEvent) => {
          if (event.data?.type !== 'INTEGRITY_CHECK_RESPONSE') return
          navigator.serviceWorker.removeEventListener('message', listener)
          answered(event.data.payload)
        }
        navigator.serviceWorker.addEventListener('message', listener)
        navigator.serviceWorker.controller!.postMessage('INTEGRITY_CHECK_REQUEST')
      }),
  )
}

/**
 * Collects the text of every script the page loads from now on.
 *
 * @example
 * const scripts = collectScripts(page)
 * await page.goto(url)
 * const texts = await scripts()
 */
export function collectScripts(page: Page): () => Promise<string[]> {
  const loading: Promise<string>[] = []
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') loading.push(response.text().catch(() => ''))
  })
  return () => Promise.all(loading)
}

/**
 * Makes the page report each `securitypolicyviolation` (directive, what was blocked, a sample of it) into `into`:
 * through the DevTools protocol, so the page's own policy does not apply to the reporting.
 *
 * @example
 * await reportPolicyViolations(page, blocked) // then expect(blocked).toEqual([])
 */
export async function reportPolicyViolations(page: Page, into: string[]): Promise<void> {
  await page.exposeFunction('reportBlocked', (what: string) => into.push(what))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { reportBlocked: (what: string) => void }).reportBlocked(
        `${event.effectiveDirective} ${event.blockedURI} ${event.sample}`.trim(),
      ),
    )
  })
}
