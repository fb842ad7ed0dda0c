import type { Browser, ConsoleMessage, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { apiGet } from './support/api.js'
import {
  collectScripts,
  launchChromium,
  mswCopies,
  newPage,
  pageErrors,
  screenshot,
  workerIntegrity,
} from './support/browser.js'

/*
 * The example app, built with no API URL: the sandbox answers in a service
 * worker, with the same seed and clock as the standalone server beside it.
 */

const appUrl = inject('appUrl')
const apiUrl = inject('apiUrl')
const msw = inject('msw')
let browser: Browser
let page: Page
let scripts: () => Promise<string[]>

/**
 * What each msw major does with a reload of the app. msw 2's worker lets a
 * navigation go by; msw 3's sends it to the page's msw like any request. And
 * msw 3 names the start option for unhandled requests `onUnhandledFrame`:
 * the example's `onUnhandledRequest: 'bypass'`, msw 2's name, goes unheard,
 * so msw 3 warns (its default) about the page's own address, which no handler takes.
 */
const RELOADS: Record<string, { title: string; throughWorker: boolean; unhandled: string[] }> = {
  '2': { title: 'past the worker, which lets navigations go by', throughWorker: false, unhandled: [] },
  '3': {
    title: 'through the worker, which passes the page on with an unhandled-request warning',
    throughWorker: true,
    unhandled: ['GET /'],
  },
}
const reload = RELOADS[msw.version.split('.')[0]!]!

beforeAll(async () => {
  browser = await launchChromium()
  page = await newPage(browser)
  scripts = collectScripts(page)
  await page.goto(appUrl)
  await page.locator('[data-call-id]').first().waitFor()
})
afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
afterAll(() => browser?.close())

const rowIds = () =>
  page.locator('[data-call-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')))

describe('the example app on the service worker', () => {
  it(`runs under the service worker of msw ${msw.version}, whose client is the one copy of msw in its scripts`, async () => {
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${appUrl}/mockServiceWorker.js`,
    )
    expect(await workerIntegrity(page)).toEqual({ packageVersion: msw.version, checksum: msw.checksum })
    expect(mswCopies(await scripts())).toBe(1)
    expect((await scripts()).some((text) => text.includes(msw.checksum))).toBe(true)
  })

  it('renders the seeded calls, newest first, as the standalone server lists them', async () => {
    const { body } = await apiGet(apiUrl, '/v1/calls?limit=25')
    expect(await rowIds()).toEqual(body.data.map((call: { id: string }) => call.id))
    await expect(page.locator('h1').textContent()).resolves.toBe('Harbor Dental Care')
    await expect(page.locator('[data-call-id]').first().locator('.row-title').textContent()).resolves.toBe(
      body.data[0].caller_name,
    )
    await screenshot(page, 'app-inbox')
  })

  it('answers byte for byte what the standalone server answers, for the same seed and clock', async () => {
    const { body: first } = await apiGet(apiUrl, '/v1/calls?limit=1')
    const paths = [
      '/v1/calls?limit=100',
      '/v1/leads?limit=100&urgency=high',
      '/v1/appointments?limit=100',
      '/v1/contacts?limit=100',
      '/v1/me',
      `/v1/calls/${first.data[0].id}`,
    ]
    for (const path of paths) {
      const inBrowser = await page.evaluate(async (url) => {
        const response = await fetch(url, { headers: { Authorization: 'Bearer sk_sandbox_all' } })
        return { status: response.status, text: await response.text() }
      }, path)
      const fromServer = await apiGet(apiUrl, path)
      const { meta: browserMeta, ...browserAnswer } = JSON.parse(inBrowser.text)
      const { meta: serverMeta, ...serverAnswer } = fromServer.body
      expect(inBrowser.status, path).toBe(200)
      expect(JSON.stringify(browserAnswer), path).toBe(JSON.stringify(serverAnswer))
      expect(browserMeta.timestamp, path).toBe(serverMeta.timestamp)
    }
  })

  it('walks the cursor with "Load more": the next page of the same list, each call once', async () => {
    const first = (await apiGet(apiUrl, '/v1/calls?limit=25')).body
    const second = (await apiGet(apiUrl, `/v1/calls?limit=25&cursor=${first.next_cursor}`)).body
    await page.getByRole('button', { name: 'Load more' }).click()
    await page.locator('[data-call-id]').nth(49).waitFor()
    const ids = await rowIds()
    expect(ids).toEqual([...first.data, ...second.data].map((call: { id: string }) => call.id))
    expect(new Set(ids).size).toBe(50)
    await screenshot(page, 'app-load-more')
  })

  it('filters the calls by status', async () => {
    const { body } = await apiGet(apiUrl, '/v1/calls?status=in-progress&limit=25')
    await page.getByLabel('Status').selectOption('in-progress')
    await expect.poll(rowIds).toEqual(body.data.map((call: { id: string }) => call.id))
    expect(await page.locator('[data-call-id] .badge').allTextContents()).toEqual(body.data.map(() => 'in-progress'))
    await page.getByLabel('Status').selectOption('')
    await page.locator('[data-call-id]').nth(24).waitFor()
  })

  it("shows a call's transcript from its messages", async () => {
    const [id] = await rowIds()
    const { body } = await apiGet(apiUrl, `/v1/calls/${id}`)
    await page.locator(`[data-call-id="${id}"]`).click()
    const messages = page.getByRole('list', { name: 'Transcript' }).locator('li')
    await messages.first().waitFor()
    expect(await messages.count()).toBe(body.data.messages.length)
    expect(await messages.first().textContent()).toBe(
      `${body.data.messages[0].role === 'assistant' ? 'Assistant' : 'Caller'}${body.data.messages[0].content}`,
    )
    await screenshot(page, 'app-transcript')
  })

  it('lists the leads on the Leads tab', async () => {
    const { body } = await apiGet(apiUrl, '/v1/leads?limit=25')
    await page.getByRole('tab', { name: 'Leads' }).click()
    await page.locator('[data-lead-id]').first().waitFor()
    expect(
      await page.locator('[data-lead-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-lead-id'))),
    ).toEqual(body.data.map((lead: { id: string }) => lead.id))
    await screenshot(page, 'app-leads')
  })

  it(`reloads ${reload.title} (msw ${msw.version})`, async () => {
    const unhandled: string[] = []
    const onConsole = (message: ConsoleMessage) => {
      const match = /^\[MSW\] Warning: intercepted a request without a matching request handler:\s+• (.+)/.exec(
        message.text(),
      )
      if (match) unhandled.push(match[1]!.trim())
    }
    page.on('console', onConsole)
    const response = await page.reload()
    await page.locator('[data-call-id]').first().waitFor()
    page.off('console', onConsole)
    expect(response!.fromServiceWorker()).toBe(reload.throughWorker)
    expect(unhandled).toEqual(reload.unhandled)
  })
})
