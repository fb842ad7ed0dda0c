import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { E2E_NOW } from './support/api.js'
import { seriousViolations } from './support/axe.js'
import { launchChromium, newPage, pageErrors, reportPolicyViolations, screenshot } from './support/browser.js'

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
  await reportPolicyViolations(page, blocked)
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
    const exchange = detail.locator('.exchange')
    expect(await exchange.evaluate((node) => [...node.childNodes].map((child) => child.nodeName))).toEqual([
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
    await page.getByRole('search').getByLabel('Status').selectOption('4xx')
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1)
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

describe("the console's Requests tab", () => {
  /** Whether the page scrolls sideways: it must not, at any width. */
  const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)

  it('finds a request by its id, and pages past the newest with the count shown, the first page alone live', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const first = await fetch(`${server.url}/v1/calls?limit=3`, { headers: KEY })
    const wanted = first.headers.get('x-request-id')!
    for (let i = 0; i < 60; i++) await fetch(`${server.url}/v1/me`, { headers: KEY })
    const page = await openConsole(server.url)
    const count = page.locator('.count')
    await expect.poll(() => count.textContent()).toBe('1–50 of 61 matching')
    await page.getByRole('button', { name: 'Next' }).click()
    await expect.poll(() => count.textContent()).toBe('51–61 of 61 matching')
    await page.locator(`[data-request-id="${wanted}"]`).waitFor()
    expect(await page.locator('.live-note').textContent()).toMatch(/only the first page follows new requests/)
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true)
    // A request made while page 2 is read shows once the developer goes back to the newest.
    const later = await fetch(`${server.url}/v1/me`, { headers: KEY })
    await page.getByRole('button', { name: 'Newest' }).click()
    await page.locator(`#request-list tbody tr[data-request-id="${later.headers.get('x-request-id')}"]`).waitFor()
    await expect.poll(() => count.textContent()).toBe('1–50 of 62 matching')

    await page.getByLabel('Request id').fill(wanted)
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1)
    expect(await page.locator('#request-list tbody tr').getAttribute('data-request-id')).toBe(wanted)
    await expect.poll(() => count.textContent()).toBe('1–1 of 1 matching')
    // A time range: the sandbox clock stands still at E2E_NOW, so every request is in the minute from it.
    await page.getByLabel('Request id').fill('')
    await page.getByLabel('From (UTC)').fill('2026-11-20T12:00:00')
    await page.getByLabel('To (UTC)').fill('2026-11-20T12:01:00')
    await expect.poll(() => count.textContent()).toBe('1–50 of 62 matching')
    await page.getByLabel('From (UTC)').fill('2026-11-20T12:01:00')
    await expect.poll(() => count.textContent()).toBe('0 matching')
  })

  it('copies a request as a curl command that, run, asks the sandbox the same thing', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const page = await openConsole(server.url)
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
    const sent = await fetch(`${server.url}/v1/contacts?expand=none`, {
      method: 'POST',
      headers: { ...KEY, 'Content-Type': 'application/json', 'X-Note': "it's mine" },
      body: JSON.stringify({ phone: '+14155550166', name: "O'Neil" }),
    })
    await page.locator(`[data-request-id="${sent.headers.get('x-request-id')}"]`).click()
    await page.getByRole('button', { name: 'Copy as curl' }).click()
    const shown = page.locator('pre.curl')
    await expect.poll(() => shown.getAttribute('data-copied')).toBe('true')
    const command = (await shown.textContent())!
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command)
    // Not spawnSync: the server answering curl runs in this process, and must not be blocked while it does.
    const ran = await promisify(execFile)('sh', ['-c', `${command} -s -o /dev/null -w '%{http_code}'`], {
      timeout: 30_000,
    })
    const journal = (await (await fetch(`${server.url}/_sandbox/requests?limit=2`)).json()).data
    const [again, original] = journal
    expect(again.request_id).not.toBe(original.request_id)
    for (const part of ['method', 'path', 'query', 'key'] as const) expect(again[part], part).toEqual(original[part])
    expect(again.request.body).toBe(original.request.body)
    expect(again.request.headers['x-note']).toBe("it's mine")
    expect(ran.stdout).toBe(String(again.status))
  })

  it('replays a request: the new answer beside the old, and the replay in the journal', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const page = await openConsole(server.url)
    const refused = await fetch(`${server.url}/v1/contacts?limit=2`, {
      headers: { Authorization: 'Bearer sk_sandbox_calls' },
    })
    await page.locator(`[data-request-id="${refused.headers.get('x-request-id')}"]`).click()
    const detail = page.locator('#request-detail')
    // For a missing scope, the reason names the sandbox's keys that have it.
    await expect
      .poll(() => detail.locator('.reason').textContent())
      .toContain('Keys with contacts:read: sk_sandbox_all')
    await page.getByRole('button', { name: 'Replay' }).click()
    await expect.poll(() => detail.locator('[data-answer="replayed"] h4').textContent()).toBe('Now: 403')
    expect(await detail.locator('[data-answer="journaled"] h4').textContent()).toBe('Then: 403')
    expect(await detail.locator('[data-answer="replayed"] pre').textContent()).toContain('"code": "insufficient_scope"')
    expect(await detail.locator('.replay').textContent()).toContain('The replay is a real API request')
    const journal = (await (await fetch(`${server.url}/_sandbox/requests?path=/v1/contacts`)).json()).data
    expect(journal.map(({ key, status }: { key: string; status: number }) => [key, status])).toEqual([
      ['sk_sandbox_calls', 403],
      ['sk_sandbox_calls', 403],
    ])
    await page.locator(`#request-list tbody tr[data-request-id="${journal[0].request_id}"]`).waitFor()
  })

  it('keeps the list and the open request apart at 1280 and 1920, in a drawer at 390, and never scrolls sideways', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const calls = await (await fetch(`${server.url}/v1/calls?limit=2`, { headers: KEY })).json()
    const paged = await fetch(`${server.url}/v1/calls?limit=2&cursor=${calls.next_cursor}`, { headers: KEY })
    await fetch(`${server.url}/v1/calls?limit=500`, { headers: KEY })
    const id = paged.headers.get('x-request-id')!
    const page = await openConsole(server.url)
    const row = page.locator(`#request-list tbody tr[data-request-id="${id}"]`)
    const detail = page.locator('#request-detail')
    for (const width of [1280, 1920]) {
      await page.setViewportSize({ width, height: 860 })
      await row.click()
      await detail.locator('h2').waitFor()
      const [list, open] = [await page.locator('.list-pane').boundingBox(), await detail.boundingBox()]
      expect(list!.x + list!.width, `${width}`).toBeLessThanOrEqual(open!.x)
      expect(await scrollsSideways(page), `${width}`).toBe(false)
      // The long cursor URL is cut in its cell, whole in its title.
      const path = row.locator('td.cut').first()
      expect(await path.getAttribute('title')).toContain(`cursor=${calls.next_cursor}`)
      expect(await path.evaluate((cell) => cell.scrollWidth > cell.clientWidth)).toBe(true)
    }
    // The separator moves the split with the keyboard.
    const separator = page.getByRole('separator')
    const before = (await page.locator('.list-pane').boundingBox())!.width
    await separator.focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(async () => (await page.locator('.list-pane').boundingBox())!.width).toBeLessThan(before)
    // The chart fills its box, with a title on each bar and a legend in words.
    const [box, chart] = [await page.locator('.chart-box').boundingBox(), await page.locator('svg.chart').boundingBox()]
    expect(chart!.width).toBeGreaterThan(box!.width - 4)
    expect(await page.locator('svg.chart g title').first().textContent()).toBe(
      '12:00: 3 requests (2 2xx, 1 4xx, 0 5xx)',
    )
    expect(await page.locator('.legend').textContent()).toBe('2xx (and 3xx)4xx5xx')

    await page.setViewportSize({ width: 1280, height: 860 })
    await row.click()
    expect(await seriousViolations(page)).toEqual([])
    // The refused request open, with its reason and fix: the picture the README shows.
    await page.locator('#request-list tbody tr', { hasText: 'limit=500' }).click()
    await detail.locator('.reason').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'console-requests-1280')

    await page.setViewportSize({ width: 390, height: 844 })
    await page.getByRole('button', { name: 'Close' }).click()
    expect(await detail.isVisible()).toBe(false)
    expect(await scrollsSideways(page)).toBe(false)
    await row.focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Close')
    const drawer = (await detail.boundingBox())!
    expect([drawer.x, drawer.width]).toEqual([0, 390])
    expect(await scrollsSideways(page)).toBe(false)
    expect(await seriousViolations(page)).toEqual([])
    // A modal drawer: Tab and Shift+Tab go through its own controls, then out of the page (to the browser's), never to
    // the list or the page behind it.
    const focusIsBehind = () =>
      page.evaluate(() => {
        const focused = document.activeElement
        return focused !== null && focused !== document.body && focused.closest('#request-detail') === null
      })
    for (const key of [...Array(8).fill('Tab'), ...Array(8).fill('Shift+Tab')]) {
      await page.keyboard.press(key)
      expect(await focusIsBehind(), key).toBe(false)
    }
    await page.getByRole('button', { name: 'Close' }).focus()
    await screenshot(page, 'console-requests-390')
    await page.keyboard.press('Escape')
    expect(await detail.isVisible()).toBe(false)
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.requestId))
      .toBe(id)
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
