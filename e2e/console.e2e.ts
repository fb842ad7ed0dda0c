import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { E2E_NOW } from './support/api.js'
import { launchChromium, newPage, pageErrors, screenshot } from './support/browser.js'

/*
 * The console at /_sandbox/console/, in Chromium, over a standalone server of
 * the tests' own (the package's source, as the built command serves it).
 * Every page reports what its Content-Security-Policy blocked: the console's
 * own code must break none of it.
 */

const KEY = { Authorization: 'Bearer sk_sandbox_all' }
let browser: Browser
let server: RunningServer
const others: RunningServer[] = []
/** What the pages' policies blocked (`securitypolicyviolation`): directive, what was blocked, a sample of it. */
const blocked: string[] = []

beforeAll(async () => {
  browser = await launchChromium()
  server = await startServer({ port: 0, quiet: true, now: E2E_NOW })
})
afterEach(async () => {
  expect(pageErrors.splice(0)).toEqual([])
  expect(blocked.splice(0)).toEqual([])
  await Promise.all(others.splice(0).map((other) => other.close()))
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** A fresh page that reports each `securitypolicyviolation` into `blocked`, and says whether a dialog opened. */
async function watchedPage(): Promise<Page & { dialogs: string[] }> {
  const page = Object.assign(await newPage(browser), { dialogs: [] as string[] })
  // Through the DevTools protocol: the page's own policy does not apply to these two.
  await page.exposeFunction('reportBlocked', (what: string) => blocked.push(what))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { reportBlocked: (what: string) => void }).reportBlocked(
        `${event.effectiveDirective} ${event.blockedURI} ${event.sample}`.trim(),
      ),
    )
  })
  page.on('dialog', (dialog) => {
    page.dialogs.push(dialog.message())
    dialog.dismiss().catch(() => undefined)
  })
  return page
}

async function openConsole(url: string, tab = 'requests'): Promise<Page & { dialogs: string[] }> {
  const page = await watchedPage()
  await page.goto(`${url}/_sandbox/console/#${tab}`)
  await page.getByRole('tab', { name: 'Requests' }).waitFor()
  return page
}

describe('the console', () => {
  it('shows a request made outside the browser within a second, and a 400 with its body and reason', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const page = await openConsole(server.url)
    const sent = performance.now()
    const bad = await fetch(`${server.url}/v1/calls?limit=500`, { headers: KEY })
    const requestId = bad.headers.get('x-request-id')!
    const row = page.locator(`[data-request-id="${requestId}"]`)
    await row.waitFor({ timeout: 1_000 })
    expect(performance.now() - sent).toBeLessThan(1_000)
    await row.click()
    const detail = page.locator('#request-detail')
    await expect.poll(() => detail.locator('[data-reason]').getAttribute('data-reason')).toBe('invalid_parameter')
    expect(await detail.locator('.reason').textContent()).toMatch(
      /limit must be an integer from 1 to 100.*The parameter: limit\./s,
    )
    expect(await detail.locator('pre.body').last().textContent()).toContain('"code": "invalid_parameter"')
    // An answer that is no error shows no reason, and nothing in its place.
    const fine = await fetch(`${server.url}/v1/me`, { headers: KEY })
    await page.locator(`[data-request-id="${fine.headers.get('x-request-id')}"]`).click()
    await expect.poll(() => detail.locator('h2').textContent()).toBe('GET /v1/me')
    expect(await detail.evaluate((node) => [...node.childNodes].map((child) => child.nodeName))).toEqual([
      'H2',
      'P',
      'H3',
      'PRE',
      'P',
      'H3',
      'PRE',
      'PRE',
    ])
    // The filters keep the view to what is asked for.
    await fetch(`${server.url}/v1/me`, { headers: KEY })
    await page.locator('#filters').getByLabel('Status').selectOption('4xx')
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1)
    await screenshot(page, 'console-requests')
  })

  it("shows a session's requests only in that session's console", async () => {
    const page = await openConsole(`${server.url}/sessions/console-a`)
    expect(await page.locator('#where').textContent()).toBe('(session console-a)')
    const mine = await fetch(`${server.url}/sessions/console-a/v1/me`, { headers: KEY })
    const theirs = await fetch(`${server.url}/sessions/console-b/v1/me`, { headers: KEY })
    const root = await fetch(`${server.url}/v1/me`, { headers: KEY })
    await page.locator(`[data-request-id="${mine.headers.get('x-request-id')}"]`).waitFor({ timeout: 1_000 })
    for (const other of [theirs, root]) {
      expect(await page.locator(`[data-request-id="${other.headers.get('x-request-id')}"]`).count()).toBe(0)
    }
    await screenshot(page, 'console-session')
  })

  it('asks for the admin token once when the sandbox has one, and keeps it for the tab', async () => {
    const guarded = await startServer({ port: 0, quiet: true, now: E2E_NOW, adminToken: 'admin-token-123' })
    others.push(guarded)
    const page = await watchedPage()
    await page.goto(`${guarded.url}/_sandbox/console/`)
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await dialog.getByLabel('Admin token').fill('admin-token-123')
    await dialog.getByRole('button', { name: 'Use it' }).click()
    const answer = await fetch(`${guarded.url}/v1/me`, { headers: KEY })
    await page.locator(`[data-request-id="${answer.headers.get('x-request-id')}"]`).waitFor({ timeout: 2_000 })
    await page.getByRole('tab', { name: 'Sessions' }).click()
    await page.locator('[data-session="default"]').waitFor()
    expect(await dialog.isVisible()).toBe(false)
    await screenshot(page, 'console-sessions')
  })
})

describe('the console, given hostile text', () => {
  it('links an https recording, and shows a javascript: recording_url as text: it runs none of a record', async () => {
    const page = await openConsole(server.url, 'world')
    const detail = page.locator('#world-detail')
    await page.locator('#world-list tbody tr').first().click()
    const recording = detail.getByRole('link', { name: 'The recording' })
    expect(await recording.getAttribute('href')).toMatch(/^https:\/\/recordings\.call-sandbox\.example\//)

    // The sandbox serves no such call (a recording or an upstream with one is refused): the browser is handed one.
    await page.route('**/v1/calls/*', async (route) => {
      const response = await route.fetch()
      const body = await response.json()
      Object.assign(body.data, {
        recording_url: 'JavaScript:window.__pwned="link"',
        caller_name: '<img src=x onerror="window.__pwned=\'name\'">',
        summary: '<script>window.__pwned="summary"</script>',
      })
      body.data.messages[0].content = '<img src=x onerror=alert(1)>'
      await route.fulfill({ response, json: body })
    })
    await page.locator('#world-list tbody tr').nth(1).click()
    const shown = detail.locator('.not-a-link')
    await shown.waitFor()
    expect(await shown.textContent()).toContain('JavaScript:window.__pwned="link"')
    await shown.click()
    expect(await detail.getByRole('link').count()).toBe(0)
    expect(await detail.locator('h2').textContent()).toContain('<img src=x onerror=')
    expect(await detail.textContent()).toContain('<script>window.__pwned="summary"</script>')
    expect(await detail.locator('img, script').count()).toBe(0)
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(page.dialogs).toEqual([])
  })

  it('shows markup sent in a path, a header and a body as text in the journal, and runs none of it', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const page = await openConsole(server.url)
    const sent = [
      await fetch(`${server.url}/v1/<img src=x onerror=alert(1)>`, { headers: KEY }),
      await fetch(`${server.url}/v1/me`, { headers: { ...KEY, 'X-Note': '<img src=x onerror=alert(2)>' } }),
      await fetch(`${server.url}/v1/contacts`, {
        method: 'POST',
        headers: { ...KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550177', name: '<script>alert(3)</script>' }),
      }),
    ]
    const detail = page.locator('#request-detail')
    for (const [i, shows] of [
      'onerror=alert(1)',
      '<img src=x onerror=alert(2)>',
      '<script>alert(3)</script>',
    ].entries()) {
      const row = page.locator(`[data-request-id="${sent[i]!.headers.get('x-request-id')}"]`)
      await row.click()
      await expect.poll(() => detail.textContent()).toContain(shows)
    }
    expect(await page.locator('main img, main script').count()).toBe(0)
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(page.dialogs).toEqual([])
  })

  it('blocks an inline script, an inline event handler and a javascript: link put into the page', async () => {
    const page = await openConsole(server.url)
    await page.evaluate(() => {
      const script = document.createElement('script')
      script.textContent = 'window.__pwned = "inline script"'
      document.body.append(script)
      const holder = document.createElement('div')
      holder.innerHTML =
        '<img src="./no-such-image.png" onerror="window.__pwned = \'inline handler\'">' +
        '<a id="pwn" href="javascript:window.__pwned=\'javascript: link\'">a link</a>'
      document.body.append(holder)
    })
    await page.locator('#pwn').click()
    await expect.poll(() => blocked.length).toBeGreaterThanOrEqual(3)
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()
    const directives = blocked.splice(0).map((what) => what.split(' ')[0])
    expect(new Set(directives)).toEqual(new Set(['script-src-elem', 'script-src-attr']))
  })
})

describe('the API reference at /docs', () => {
  // Swagger UI is a large script, slow to draw on a busy machine: a generous bound, not a measure.
  it('runs Swagger UI under its policy: a key given and then not kept, examples, a schema, an operation tried', {
    timeout: 240_000,
  }, async () => {
    const page = await watchedPage()
    await page.goto(`${server.url}/docs/`)
    await page.getByRole('heading', { name: /Call-handling API/ }).waitFor()
    await page.getByRole('button', { name: 'Authorize' }).first().click()
    const dialog = page.locator('.modal-ux')
    await dialog.getByLabel('auth-bearer-value').fill('sk_sandbox_all')
    await dialog.getByRole('button', { name: 'Apply credentials' }).click()
    await dialog.getByRole('button', { name: 'Close' }).click()

    const operation = (id: string) => page.locator(`[id$="-${id}"]`)
    await operation('getCalls').locator('.opblock-summary-control').click()
    await operation('getCalls').locator('.highlight-code').first().waitFor()
    await operation('postContacts').locator('.opblock-summary-control').click()
    await operation('postContacts').getByRole('tab', { name: 'Schema' }).first().click()
    await operation('postContacts').locator('.model-box').first().waitFor()
    const me = operation('getMe')
    await me.locator('.opblock-summary-control').click()
    await me.getByRole('button', { name: 'Try it out' }).click()
    await me.getByRole('button', { name: 'Execute' }).click()
    await expect.poll(() => me.locator('.live-responses-table tbody .response-col_status').textContent()).toBe('200')

    // persistAuthorization is off: the key lives in the page alone, nothing of it in the origin's storage.
    expect(await page.evaluate(() => ({ ...localStorage, ...sessionStorage }))).toEqual({})
    await screenshot(page, 'docs')
  })
})
