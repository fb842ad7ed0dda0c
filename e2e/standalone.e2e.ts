import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { apiGet } from './support/api.js'
import { launchChromium, newPage, pageErrors, screenshot } from './support/browser.js'

/*
 * The same app, built with VITE_CALL_SANDBOX_URL: no service worker, every
 * request crosses to the standalone server on another origin (CORS).
 */

const standaloneAppUrl = inject('standaloneAppUrl')
const apiUrl = inject('apiUrl')
let browser: Browser
let page: Page
const requested: string[] = []

beforeAll(async () => {
  browser = await launchChromium()
  page = await newPage(browser)
  page.on('request', (request) => requested.push(request.url()))
  await page.goto(standaloneAppUrl)
  await page.locator('[data-call-id]').first().waitFor()
})
afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
afterAll(() => browser?.close())

describe('the example app on the standalone server', () => {
  it('reads the API from another origin, with no service worker', async () => {
    expect(new URL(apiUrl).origin).not.toBe(new URL(standaloneAppUrl).origin)
    expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull()
    const apiRequests = requested.filter((url) => url.includes('/v1/'))
    expect(apiRequests.length).toBeGreaterThan(0)
    expect(apiRequests.every((url) => url.startsWith(`${apiUrl}/v1/`))).toBe(true)
  })

  it("renders the server's calls and walks its cursor", async () => {
    const first = (await apiGet(apiUrl, '/v1/calls?limit=25')).body
    const second = (await apiGet(apiUrl, `/v1/calls?limit=25&cursor=${first.next_cursor}`)).body
    await page.getByRole('button', { name: 'Load more' }).click()
    await page.locator('[data-call-id]').nth(49).waitFor()
    const ids = await page
      .locator('[data-call-id]')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')))
    expect(ids).toEqual([...first.data, ...second.data].map((call: { id: string }) => call.id))
    await screenshot(page, 'standalone-inbox')
  })

  it("opens a transcript across origins: the call's messages, in order, from the server", async () => {
    const row = page.locator('[data-call-id]').first()
    const { body } = await apiGet(apiUrl, `/v1/calls/${await row.getAttribute('data-call-id')}`)
    await row.click()
    const messages = page.getByRole('list', { name: 'Transcript' }).locator('li')
    await messages.first().waitFor()
    expect(await messages.allTextContents()).toEqual(
      body.data.messages.map(
        ({ role, content }: { role: string; content: string }) =>
          `${role === 'assistant' ? 'Assistant' : 'Caller'}${content}`,
      ),
    )
    await screenshot(page, 'standalone-transcript')
  })
})

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

describe('the API reference at /docs', () => {
  it('renders every operation of the document from files the server itself serves', async () => {
    const reference = await newPage(browser)
    const fetched: string[] = []
    reference.on('request', (request) => fetched.push(request.url()))
    await reference.goto(`${apiUrl}/docs`)
    await reference.locator('.opblock').first().waitFor()
    const { body: document } = await apiGet(apiUrl, '/openapi.json')
    const operations = Object.values(document.paths as Record<string, object>).flatMap((item) =>
      Object.keys(item).filter((key) => METHODS.includes(key)),
    )
    expect(await reference.locator('.opblock').count()).toBe(operations.length)
    expect(
      fetched.every((url) => url.startsWith(`${apiUrl}/`) || url.startsWith('data:')),
      fetched.join('\n'),
    ).toBe(true)
    await screenshot(reference, 'standalone-docs')
    await reference.close()
  })
})
