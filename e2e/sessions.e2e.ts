import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { apiGet } from './support/api.js'
import { launchChromium, newPage, pageErrors, screenshot } from './support/browser.js'

/*
 * A parallel run against one standalone server: four browser contexts at
 * once, each the example app in a session of its own (?session=<name>),
 * writing, resetting and walking pages. None may see another's records.
 */

const appUrl = inject('appUrl')
const standaloneAppUrl = inject('standaloneAppUrl')
const apiUrl = inject('apiUrl')
const WORKERS = [0, 1, 2, 3]
let browser: Browser

beforeAll(async () => {
  browser = await launchChromium()
})
afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
afterAll(() => browser?.close())

interface Worker {
  page: Page
  session: string
  /** The session's API root. */
  api: string
  /** This worker's caller: no other worker uses the number. */
  phone: string
}

/** A request from inside the page, across origins to the session's root, as the app makes them. */
function inPage(
  worker: Worker,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  return worker.page.evaluate(
    async ({ url, method, body }) => {
      const headers: Record<string, string> = { Authorization: 'Bearer sk_sandbox_all' }
      if (body !== undefined) headers['Content-Type'] = 'application/json'
      const response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: response.status, body: await response.json() }
    },
    { url: worker.api + path, method: init.method ?? 'GET', body: init.body },
  )
}

const rowIds = (page: Page) =>
  page.locator('[data-call-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-call-id')))

describe('four browser contexts, each in a session of its own, against one standalone server', () => {
  it("write, reset and walk their pages at once, and none sees another's records", async () => {
    const workers: Worker[] = await Promise.all(
      WORKERS.map(async (i) => {
        const session = `e2e-worker-${i}-${Date.now()}`
        const page = await newPage(browser)
        await page.goto(`${standaloneAppUrl}?session=${session}`)
        await page.locator('[data-call-id]').first().waitFor()
        return { page, session, api: `${apiUrl}/sessions/${session}`, phone: `+1415555030${i}` }
      }),
    )
    const seeded = (await apiGet(apiUrl, '/v1/calls?limit=25')).body.data.map((call: { id: string }) => call.id)
    for (const worker of workers) expect(await rowIds(worker.page)).toEqual(seeded)

    // Each writes at once: a contact, and a call from that contact's number.
    const written = await Promise.all(
      workers.map(async (worker) => {
        const contact = await inPage(worker, '/v1/contacts', {
          method: 'POST',
          body: { phone: worker.phone, name: `Worker ${worker.session}` },
        })
        expect(contact.status).toBe(201)
        const call = await inPage(worker, '/_sandbox/calls', { method: 'POST', body: { caller_phone: worker.phone } })
        expect(call.status).toBe(201)
        return call.body.data.id as string
      }),
    )
    // Each inbox shows its own new call first, and every worker's contacts hold its own number only.
    await Promise.all(
      workers.map(async (worker, i) => {
        await worker.page.reload()
        await worker.page.locator(`[data-call-id="${written[i]}"]`).waitFor()
        expect((await rowIds(worker.page))[0]).toBe(written[i])
        for (const other of workers) {
          const found = await inPage(worker, `/v1/contacts?phone=${encodeURIComponent(other.phone)}`)
          expect(
            found.body.data.map(({ phone }: { phone: string }) => phone),
            `${worker.session} looking for ${other.phone}`,
          ).toEqual(other === worker ? [worker.phone] : [])
          const calls = await inPage(worker, `/v1/calls?phone=${encodeURIComponent(other.phone)}`)
          expect(calls.body.data.length > 0, `${worker.session}'s calls from ${other.phone}`).toBe(other === worker)
        }
      }),
    )
    await screenshot(workers[0]!.page, 'sessions-worker-0')

    // Two reset while the others walk their pages: a reset touches its own session only.
    await Promise.all(
      workers.map(async (worker, i) => {
        if (i % 2 === 0) {
          expect((await inPage(worker, '/_sandbox/reset', { method: 'POST' })).status).toBe(200)
          await worker.page.reload()
          await worker.page.locator('[data-call-id]').first().waitFor()
          expect(await rowIds(worker.page)).toEqual(seeded)
          return
        }
        await worker.page.getByRole('button', { name: 'Load more' }).click()
        await worker.page.locator('[data-call-id]').nth(49).waitFor()
        const first = (await inPage(worker, '/v1/calls?limit=25')).body
        const second = (await inPage(worker, `/v1/calls?limit=25&cursor=${first.next_cursor}`)).body
        expect(await rowIds(worker.page)).toEqual(
          [...first.data, ...second.data].map((call: { id: string }) => call.id),
        )
        expect((await rowIds(worker.page))[0]).toBe(written[i])
      }),
    )
    for (const [i, worker] of workers.entries()) {
      const own = await inPage(worker, `/v1/contacts?phone=${encodeURIComponent(worker.phone)}`)
      expect(own.body.data.length, worker.session).toBe(i % 2 === 0 ? 0 : 1)
    }
    // And the default session, the bare root, saw none of it.
    for (const worker of workers)
      expect((await apiGet(apiUrl, `/v1/contacts?phone=${encodeURIComponent(worker.phone)}`)).body.data).toEqual([])
    await Promise.all(workers.map((worker) => worker.page.context().close()))
  })
})

describe('sessions on the service worker', () => {
  it('answers a session of its own in the browser too: its writes stay in it', async () => {
    const page = await newPage(browser)
    await page.goto(`${appUrl}?session=in-the-worker`)
    await page.locator('[data-call-id]').first().waitFor()
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${appUrl}/mockServiceWorker.js`,
    )
    const seeded = (await apiGet(apiUrl, '/v1/calls?limit=25')).body.data.map((call: { id: string }) => call.id)
    expect(await rowIds(page)).toEqual(seeded)
    const worker: Worker = {
      page,
      session: 'in-the-worker',
      api: `${appUrl}/sessions/in-the-worker`,
      phone: '+14155550399',
    }
    expect((await inPage(worker, '/v1/contacts', { method: 'POST', body: { phone: worker.phone } })).status).toBe(201)
    expect((await inPage(worker, `/v1/contacts?phone=${encodeURIComponent(worker.phone)}`)).body.data).toHaveLength(1)
    const root = await page.evaluate(
      async (url) => (await (await fetch(url, { headers: { Authorization: 'Bearer sk_sandbox_all' } })).json()).data,
      `${appUrl}/v1/contacts?phone=${encodeURIComponent(worker.phone)}`,
    )
    expect(root).toEqual([])
    await page.context().close()
  })
})
