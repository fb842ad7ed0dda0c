import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { E2E_NOW } from './support/api.js'
import { launchChromium, newPage, pageErrors, screenshot } from './support/browser.js'

/*
 * The console at /_sandbox/console/, in Chromium, over a standalone server of
 * the tests' own (the package's source, as the built command serves it).
 */

const KEY = { Authorization: 'Bearer sk_sandbox_all' }
let browser: Browser
let server: RunningServer
const others: RunningServer[] = []

beforeAll(async () => {
  browser = await launchChromium()
  server = await startServer({ port: 0, quiet: true, now: E2E_NOW })
})
afterEach(async () => {
  expect(pageErrors.splice(0)).toEqual([])
  await Promise.all(others.splice(0).map((other) => other.close()))
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function openConsole(url: string, tab = 'requests'): Promise<Page> {
  const page = await newPage(browser)
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
    // The filters keep the view to what is asked for.
    await fetch(`${server.url}/v1/me`, { headers: KEY })
    await page.locator('#filters').getByLabel('Status').selectOption('4xx')
    await expect.poll(() => page.locator('#request-list tbody tr').count()).toBe(1)
    await screenshot(page, 'console-requests')
  })

  it('resets, moves the clock and rings a call, and the API answers the change', async () => {
    await fetch(`${server.url}/_sandbox/reset`, { method: 'POST' })
    const page = await openConsole(server.url, 'controls')
    await page.getByLabel('Advance by seconds').fill('3600')
    await page.getByRole('button', { name: 'Advance' }).click()
    await expect.poll(() => page.locator('#clock-now').textContent()).toContain('T13:00:00.000Z')
    const clock = await (await fetch(`${server.url}/_sandbox/clock`)).json()
    expect(clock.data.now).toBe('2026-11-20T13:00:00.000Z')

    await page.getByLabel('Caller phone').fill('+14155550188')
    await page.getByRole('button', { name: 'Ring' }).click()
    const rung = page.locator('#control-result [data-call-id]')
    await rung.waitFor()
    const callId = await rung.getAttribute('data-call-id')
    const call = await fetch(`${server.url}/v1/calls/${callId}`, { headers: KEY })
    expect(call.status).toBe(200)
    expect((await call.json()).data.caller_phone).toBe('+14155550188')
    await screenshot(page, 'console-controls')

    await page.getByLabel('Scenario').selectOption('empty')
    await page.getByRole('button', { name: 'Reset the world' }).click()
    await expect
      .poll(async () => (await fetch(`${server.url}/_sandbox/health`).then((r) => r.json())).data.scenario)
      .toBe('empty')
    expect((await fetch(`${server.url}/v1/calls/${callId}`, { headers: KEY })).status).toBe(404)
    await fetch(`${server.url}/_sandbox/reset`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"scenario":"default"}',
    })
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
    const page = await newPage(browser)
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
