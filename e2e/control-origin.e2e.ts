import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../src/server/startServer.js'
import { E2E_NOW } from './support/api.js'
import { launchChromium, newPage, pageErrors } from './support/browser.js'

/*
 * Who may drive the standalone server's control plane, in Chromium: a page of
 * another origin (a tiny server of its own on another port) tries to read the
 * journal and reset the world with fetch and with a form, and cannot; the
 * console at the sandbox's own origin still can; a page of an origin the
 * server allows can; a name rebound to 127.0.0.1 (DNS rebinding) is refused.
 */

const KEY = { Authorization: 'Bearer sk_sandbox_all' }
/** A domain name Chromium resolves to 127.0.0.1 here, as a rebound attacker's name would. */
const REBOUND = 'rebound.test'
let browser: Browser
let sandbox: RunningServer
const pages: { other?: PageServer; allowed?: PageServer } = {}
/** The sandbox's request log, a line an answer: what it answered the browser, whether the page could read it or not. */
const logged: string[] = []

interface PageServer {
  url: string
  close(): Promise<void>
}

/** A server of one blank page on 127.0.0.1 and a port of its own: another origin than the sandbox's. */
async function pageServer(): Promise<PageServer> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>A page</title>')
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((closed) => server.close(() => closed())),
  }
}

beforeAll(async () => {
  browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`] })
  pages.other = await pageServer()
  pages.allowed = await pageServer()
  sandbox = await startServer({
    port: 0,
    now: E2E_NOW,
    allowedOrigins: [pages.allowed.url],
    log: (line) => logged.push(line),
  })
})
afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
afterAll(async () => {
  await browser?.close()
  await sandbox?.close()
  await Promise.all(Object.values(pages).map((page) => page.close()))
})

/** A contact written from outside the browser: it is there until the world is reset. */
async function writeContact(phone: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/v1/contacts`, {
    method: 'POST',
    headers: { ...KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify({ phone }),
  })
  expect(response.status).toBe(201)
  return (await response.json()).data.id
}

const contactStatus = async (id: string) => (await fetch(`${sandbox.url}/v1/contacts/${id}`, { headers: KEY })).status

/** What the page's fetch got: the status and body it could read, or the error that stood for a refusal. */
function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; mode?: RequestMode } = {},
): Promise<{ status: number; body: string } | { error: string }> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init)
        return { status: response.status, body: await response.text() }
      } catch (error) {
        return { error: String(error) }
      }
    },
    { url, init },
  )
}

/** The sandbox's log lines since the last call, of its control plane: `POST /_sandbox/reset 403`. */
function controlRequests(): string[] {
  return logged
    .splice(0)
    .map((line) => line.split(' ').slice(0, 3).join(' '))
    .filter((line) => line.includes(' /_sandbox/'))
}

describe('a page of another origin', () => {
  it('can neither read the journal nor reset the world nor move the clock, by fetch or by a form', async () => {
    const contact = await writeContact('+14155550181')
    const page = await newPage(browser)
    await page.goto(pages.other!.url)
    controlRequests()

    // A read, and the simple requests that need no preflight: refused, and unreadable to the page besides.
    expect(await fetchFromPage(page, `${sandbox.url}/_sandbox/requests`)).toMatchObject({ error: /TypeError/ })
    expect(await fetchFromPage(page, `${sandbox.url}/_sandbox/reset`, { method: 'POST' })).toMatchObject({
      error: /TypeError/,
    })
    const blind = await fetchFromPage(page, `${sandbox.url}/_sandbox/clock`, {
      method: 'POST',
      mode: 'no-cors',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"advance_seconds":3600}',
    })
    expect(blind).toEqual({ status: 0, body: '' })
    // A JSON body is preflighted: the preflight is refused, and the POST never leaves.
    const json = await fetchFromPage(page, `${sandbox.url}/_sandbox/reset`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(json).toMatchObject({ error: /TypeError/ })
    expect(controlRequests()).toEqual([
      'GET /_sandbox/requests 403',
      'POST /_sandbox/reset 403',
      'POST /_sandbox/clock 403',
      'OPTIONS /_sandbox/reset 403',
    ])

    // A form, posted as the page's navigation: the browser shows the sandbox's refusal.
    await page.evaluate((action) => {
      const form = document.createElement('form')
      form.method = 'POST'
      form.action = action
      document.body.append(form)
      form.submit()
    }, `${sandbox.url}/_sandbox/reset`)
    await page.waitForURL(`${sandbox.url}/_sandbox/reset`)
    expect(JSON.parse((await page.locator('body').textContent()) ?? '').error.code).toBe('origin_not_allowed')
    expect(controlRequests()).toEqual(['POST /_sandbox/reset 403'])

    expect(await contactStatus(contact)).toBe(200)
    const clock = await (await fetch(`${sandbox.url}/_sandbox/clock`)).json()
    expect(clock.data.now).toBe('2026-11-20T12:00:00.000Z')
    await page.context().close()
  })

  it('may still read the API, as any browser app on another origin', async () => {
    const page = await newPage(browser)
    await page.goto(pages.other!.url)
    const me = await fetchFromPage(page, `${sandbox.url}/v1/me`, { headers: KEY })
    expect(me).toMatchObject({ status: 200 })
    await page.context().close()
  })
})

describe("the console, at the sandbox's own origin", () => {
  it('still resets the world', async () => {
    const contact = await writeContact('+14155550182')
    const page = await newPage(browser)
    await page.goto(`${sandbox.url}/_sandbox/console/#controls`)
    // The console asks before a reset: the page's own confirmation, then the reset.
    await page.getByRole('button', { name: 'Reset the world…' }).click()
    await page.getByRole('button', { name: 'Reset to default' }).click()
    await expect.poll(() => contactStatus(contact)).toBe(404)
    await page.context().close()
  })
})

describe('a page of an allowed origin', () => {
  it('reads the journal and rings a call (a preflighted POST)', async () => {
    const page = await newPage(browser)
    await page.goto(pages.allowed!.url)
    const journal = await fetchFromPage(page, `${sandbox.url}/_sandbox/requests?limit=1`)
    expect(journal).toMatchObject({ status: 200 })
    const rung = await fetchFromPage(page, `${sandbox.url}/_sandbox/calls`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"caller_phone":"+14155550183"}',
    })
    expect(rung).toMatchObject({ status: 201 })
    const callId = JSON.parse((rung as { body: string }).body).data.id
    expect((await fetch(`${sandbox.url}/v1/calls/${callId}`, { headers: KEY })).status).toBe(200)
    await page.context().close()
  })
})

describe('a name rebound to 127.0.0.1', () => {
  it('gets no control plane: the page of that name is refused by its Host', async () => {
    const page = await newPage(browser)
    const { port } = new URL(sandbox.url)
    const answer = await page.goto(`http://${REBOUND}:${port}/_sandbox/requests`)
    expect(answer?.status()).toBe(403)
    expect(JSON.parse((await page.locator('body').textContent()) ?? '').error.code).toBe('host_not_allowed')
    await page.context().close()
  })
})
