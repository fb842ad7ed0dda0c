import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { E2E_NOW } from './support/api.js'
import { seriousViolations } from './support/axe.js'
import { launchChromium, newPage, pageErrors, reportPolicyViolations, screenshot } from './support/browser.js'

/*
 * The console's World, Controls, Sessions and Usage tabs in Chromium, over a standalone server of the tests' own.
 * Every page reports what its Content-Security-Policy blocked: the views must break none of it.
 */

const KEY = { Authorization: 'Bearer sk_sandbox_all' }
const JSON_TYPE = { 'Content-Type': 'application/json' }
let browser: Browser
let server: RunningServer
const others: RunningServer[] = []
const blocked: string[] = []

beforeAll(async () => {
  browser = await launchChromium()
  server = await startServer({ port: 0, quiet: true, now: E2E_NOW })
})
beforeEach(async () => {
  await fetch(`${server.url}/_sandbox/reset`, { method: 'POST', headers: JSON_TYPE, body: '{"scenario":"default"}' })
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

/** The console at `url`, open at `tab`, reporting each `securitypolicyviolation` into `blocked`. */
async function openConsole(url: string, tab: string): Promise<Page> {
  const page = await newPage(browser)
  await reportPolicyViolations(page, blocked)
  page.on('dialog', (dialog) => {
    blocked.push(`a dialog opened: ${dialog.message()}`)
    dialog.dismiss().catch(() => undefined)
  })
  await page.goto(`${url}/_sandbox/console/#${tab}`)
  await page.getByRole('tab', { name: 'Requests' }).waitFor()
  return page
}

const json = async (url: string, init?: RequestInit) => (await (await fetch(url, init)).json()).data
const scenarioOf = async () => (await json(`${server.url}/_sandbox/health`)).scenario

describe('the World tab', () => {
  it('follows a reset to empty: empty states, the open call closed with a note; its reads are not journaled', async () => {
    const page = await openConsole(server.url, 'world')
    const world = page.locator('#world')
    await world.locator('#world-list tbody tr').first().click()
    await world.locator('#world-detail [data-record]').waitFor()
    const callId = await world.locator('#world-detail [data-record]').getAttribute('data-record')
    // A kind with links: a lead's fields, its call opened from it.
    await world.getByLabel('Records').selectOption('leads')
    await world.getByRole('button', { name: 'Show' }).click()
    await world.locator('#world-list tbody tr').first().click()
    await world.locator('#world-detail dl').waitFor()
    await world.locator('#world-detail button.link').first().click()
    await world.locator('#world-detail .message').first().waitFor()
    // The console's own reads are neither journaled nor counted.
    expect(await json(`${server.url}/_sandbox/requests`)).toEqual([])
    expect(await json(`${server.url}/_sandbox/usage`)).toEqual([])

    await world.getByLabel('Records').selectOption('calls')
    await world.getByRole('button', { name: 'Show' }).click()
    await world.locator(`#world-list tr[data-id="${callId}"]`).click()
    await world.locator(`#world-detail [data-record="${callId}"]`).waitFor()
    await page.getByRole('tab', { name: 'Controls' }).click()
    const reset = page.getByRole('region', { name: 'Reset' })
    await reset.getByLabel('Scenario').selectOption('empty')
    await reset.getByRole('button', { name: 'Reset the world…' }).click()
    await reset.getByRole('button', { name: 'Reset to empty' }).click()
    await expect.poll(scenarioOf).toBe('empty')

    await page.getByRole('tab', { name: 'World' }).click()
    await expect
      .poll(() => world.locator('.empty-state').textContent())
      .toBe('No calls in this world. Ring a call in Controls to make one.')
    expect(await world.locator(`#world-detail [data-gone="${callId}"]`).textContent()).toContain(
      'no longer in this world',
    )
    expect(await world.locator('[data-record], #world-list tbody tr').count()).toBe(0)
    for (const kind of ['contacts', 'leads', 'appointments']) {
      await world.getByLabel('Records').selectOption(kind)
      await world.getByRole('button', { name: 'Show' }).click()
      await expect.poll(() => world.locator('.empty-state').textContent()).toContain(`No ${kind} in this world.`)
    }
  })

  it('pages with Next page', async () => {
    const page = await openConsole(server.url, 'world')
    const rows = page.locator('#world-list tbody tr')
    await rows.first().waitFor()
    expect(await rows.count()).toBe(20)
    await page.getByRole('button', { name: 'Next page' }).click()
    await expect.poll(() => rows.count()).toBe(40)
  })
})

describe('the Controls tab', () => {
  it('moves the clock, rings a call with a reason from the chosen organization, and resets once confirmed', async () => {
    const page = await openConsole(server.url, 'controls')
    const clock = page.getByRole('region', { name: 'Clock' })
    await clock.getByLabel('Advance by seconds').fill('3600')
    await clock.getByRole('button', { name: 'Advance' }).click()
    await expect.poll(() => clock.locator('.clock-now').textContent()).toBe('2026-11-20T13:00:00.000Z')
    expect((await json(`${server.url}/_sandbox/clock`)).now).toBe('2026-11-20T13:00:00.000Z')
    expect(await clock.locator('.clock-mode').textContent()).toContain('fixed')

    // The form offers what the sandbox takes (GET /_sandbox/choices), never a status of its own.
    const choices = await json(`${server.url}/_sandbox/choices`)
    const ring = page.getByRole('region', { name: 'Ring a call' })
    expect(await ring.locator('select[name=status] option').allTextContents()).toEqual([
      'default',
      ...choices.call_statuses,
    ])
    expect(choices.call_statuses).not.toContain('missed')
    const [, second] = choices.organizations
    await ring.getByLabel('Organization').selectOption(second.organization_id)
    expect(await ring.locator('select[name=reason] option').allTextContents()).toEqual(['any', ...second.reasons])
    await ring.getByLabel('Reason').selectOption(second.reasons[0])
    await ring.getByLabel('Status').selectOption('failed')
    await ring.getByLabel('Caller phone').fill('+14155550188')
    await ring.getByRole('button', { name: 'Ring' }).click()
    const rung = ring.locator('[data-call-id]')
    await rung.waitFor()
    const callId = await rung.getAttribute('data-call-id')
    // The second organization's call: its key reads it.
    const ORG_2_KEY = { Authorization: 'Bearer sk_sandbox_org2' }
    const call = await fetch(`${server.url}/v1/calls/${callId}`, { headers: ORG_2_KEY })
    expect(call.status).toBe(200)
    expect((await call.json()).data).toMatchObject({ caller_phone: '+14155550188', status: 'failed' })
    await page.setViewportSize({ width: 1280, height: 860 })
    await screenshot(page, 'console-controls-1280')

    // Reset asks first; Cancel changes nothing.
    const reset = page.getByRole('region', { name: 'Reset' })
    await reset.getByLabel('Scenario').selectOption('empty')
    await reset.getByRole('button', { name: 'Reset the world…' }).click()
    expect(await reset.locator('.confirm').textContent()).toContain('for everyone using the session default')
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
    await page.keyboard.press('Enter')
    expect(await reset.locator('.confirm').count()).toBe(0)
    expect(await scenarioOf()).toBe('default')
    expect((await fetch(`${server.url}/v1/calls/${callId}`, { headers: ORG_2_KEY })).status).toBe(200)

    await reset.getByRole('button', { name: 'Reset the world…' }).click()
    await reset.getByRole('button', { name: 'Reset to empty' }).click()
    await expect.poll(scenarioOf).toBe('empty')
    expect((await fetch(`${server.url}/v1/calls/${callId}`, { headers: ORG_2_KEY })).status).toBe(404)
    // The reset put the clock back: the card reads it again.
    await expect.poll(() => clock.locator('.clock-now').textContent()).toBe('2026-11-20T12:00:00.000Z')
  })

  it('shows the clock ticking when the sandbox clock runs', async () => {
    const running = await startServer({ port: 0, quiet: true })
    others.push(running)
    expect((await json(`${running.url}/_sandbox/clock`)).mode).toBe('running')
    const page = await openConsole(running.url, 'controls')
    const now = page.locator('.clock-now')
    await expect.poll(() => now.getAttribute('data-mode')).toBe('running')
    const first = await now.textContent()
    await expect.poll(() => now.textContent(), { timeout: 10_000 }).not.toBe(first)
    expect(await page.locator('.clock-mode').textContent()).toBe('(running)')
    // Another tab: the hidden clock stops ticking (three ticks' time shows it still), and ticks again once shown.
    await page.getByRole('tab', { name: 'Requests' }).click()
    const hidden = await now.textContent()
    await page.waitForTimeout(3_000)
    expect(await now.textContent()).toBe(hidden)
    await page.getByRole('tab', { name: 'Controls' }).click()
    await expect.poll(() => now.textContent(), { timeout: 10_000 }).not.toBe(hidden)
  })

  it('adds a fault rule the next API requests meet, and removing it restores them', async () => {
    const page = await openConsole(server.url, 'controls')
    const faults = page.getByRole('region', { name: 'Fault rules' })
    await faults.locator('.empty-state').waitFor()
    await faults.getByLabel('Path').fill('/v1/me')
    await faults.getByLabel('Method').selectOption('GET')
    await faults.locator('select[name=status]').selectOption('503')
    await faults.getByLabel('Times (empty: until removed)').fill('')
    await faults.getByRole('button', { name: 'Add the rule' }).click()
    const row = faults.locator('tr[data-rule]')
    await row.waitFor()
    expect(await row.textContent()).toContain('answers 503')
    for (let i = 0; i < 2; i++) expect((await fetch(`${server.url}/v1/me`, { headers: KEY })).status).toBe(503)
    await faults.getByRole('button', { name: /^Remove/ }).click()
    await faults.locator('.empty-state').waitFor()
    expect((await fetch(`${server.url}/v1/me`, { headers: KEY })).status).toBe(200)

    // A rule the sandbox refuses shows its reason beside the form.
    await faults.getByLabel('Path').fill('v1/me')
    await faults.getByLabel('It will').selectOption('delay_ms')
    await faults.getByRole('button', { name: 'Add the rule' }).click()
    const reason = faults.locator('.result [data-reason]')
    await reason.waitFor()
    expect(await reason.getAttribute('data-reason')).toBe('validation_failed')
    expect(await reason.textContent()).toContain('path')
    expect(await faults.locator('tr[data-rule]').count()).toBe(0)
  })

  it("edits the session's settings and restores them", async () => {
    const page = await openConsole(server.url, 'controls')
    const settings = page.getByRole('region', { name: 'Settings of this session' })
    await settings.locator('dl').getByText('none: as the session started').waitFor()
    await settings.getByLabel('Rate limit').fill('2/min')
    await settings.getByRole('button', { name: 'Save the settings' }).click()
    await settings.locator('.done').waitFor()
    expect((await json(`${server.url}/_sandbox/settings`)).rate_limit).toEqual({ limit: 2, window_ms: 60_000 })
    await settings.getByLabel('Latency (ms)').fill('not a latency')
    await settings.getByRole('button', { name: 'Save the settings' }).click()
    await settings.locator('.result [data-reason]').waitFor()
    expect(await settings.locator('.result [data-reason]').getAttribute('data-reason')).toBe('validation_failed')
    await settings.getByRole('button', { name: 'Restore the starting settings' }).click()
    await expect.poll(async () => (await json(`${server.url}/_sandbox/settings`)).rate_limit).toBeNull()
  })
})

describe('the Sessions and Usage tabs', () => {
  it("link each session's console and end one once confirmed", async () => {
    await fetch(`${server.url}/sessions/views-e2e/v1/me`, { headers: KEY })
    const page = await openConsole(server.url, 'sessions')
    const row = page.locator('[data-session="views-e2e"]')
    const href = await row.getByRole('link', { name: 'views-e2e' }).getAttribute('href')
    expect(new URL(href!).pathname).toBe('/sessions/views-e2e/_sandbox/console/')
    await row.getByRole('button', { name: 'End views-e2e' }).click()
    await page.getByRole('button', { name: 'Cancel' }).click()
    expect((await json(`${server.url}/_sandbox/sessions`)).map(({ name }: { name: string }) => name)).toContain(
      'views-e2e',
    )
    await row.getByRole('button', { name: 'End views-e2e' }).click()
    await page.getByRole('button', { name: 'End views-e2e' }).last().click()
    await expect.poll(() => row.count()).toBe(0)
    await page.locator('#sessions .empty-state').waitFor()
  })
})

describe('every view, at 1280 and 390 px', () => {
  it('has no serious accessibility violation, and its screenshots', async () => {
    await fetch(`${server.url}/v1/calls?limit=2`, { headers: KEY })
    await fetch(`${server.url}/sessions/views-shot/v1/me`, { headers: KEY })
    await fetch(`${server.url}/_sandbox/faults`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{"path":"/v1/leads","status":503,"times":null}',
    })
    const page = await openConsole(server.url, 'world')
    await page.locator('#world-list tbody tr').first().click()
    await page.locator('#world-detail [data-record]').waitFor()
    const ready = {
      world: '#world-detail .message',
      controls: '#controls tr[data-rule]',
      sessions: '[data-session="views-shot"]',
      usage: '#usage [data-key]',
    }
    for (const [width, height] of [
      [1280, 860],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height })
      for (const [tab, shown] of Object.entries(ready)) {
        await page.locator(`[role=tab][aria-controls=${tab}]`).click()
        await page.locator(shown).first().waitFor()
        expect(await seriousViolations(page), `${tab} at ${width}`).toEqual([])
        // Nothing in the view wider than its panel: no sideways scrolling at 390 px.
        const overflow = await page.evaluate((id) => {
          const panel = document.getElementById(id) as HTMLElement
          return panel.scrollWidth - panel.clientWidth
        }, tab)
        expect(overflow, `${tab} at ${width}`).toBeLessThanOrEqual(0)
        if (tab === 'world' || tab === 'controls' || width === 1280) await screenshot(page, `console-${tab}-${width}`)
      }
    }
    await fetch(`${server.url}/_sandbox/faults`, { method: 'DELETE' })
    await fetch(`${server.url}/_sandbox/sessions/views-shot`, { method: 'DELETE' })
  })
})
