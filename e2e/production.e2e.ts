import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Browser } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { apiGet, E2E_NOW } from './support/api.js'
import { launchChromium, newPage, pageErrors, workerIntegrity } from './support/browser.js'
import { startDevServer } from './support/devServer.js'
import { serveStatic } from './support/serveStatic.js'
import { step } from './support/step.js'

/*
 * The example app built for production as the README says (`npm run build`, nothing set, as from a shell): none of
 * the sandbox in what it would ship: no code of it, no key, no seeded record, no msw, no worker script. Each thing
 * looked for is first found in the build made with VITE_CALL_SANDBOX=1 (e2e/globalSetup.ts), so that a search
 * that could never match proves nothing. And `npm run dev` still has the sandbox answer in the service worker.
 */

const ROOT = resolve(import.meta.dirname, '..')
const example = inject('example')
const msw = inject('msw')
const apiUrl = inject('apiUrl')
const appUrl = inject('appUrl')
/** A shell's environment: no NODE_ENV (vitest sets `test`, with which Vite builds for development), no flag of the sandbox's. */
const SHELL = { NODE_ENV: undefined, VITE_CALL_SANDBOX: undefined, VITE_CALL_SANDBOX_URL: undefined }

/** What only the sandbox brings into a bundle: its keys and seeded records, its own names, msw and msw's worker script. */
function sandboxMarks(): string[] {
  const organizations: Array<{ organization_id: string; organization_name: string; keys: Array<{ key: string }> }> =
    JSON.parse(readFileSync(resolve(ROOT, 'fixtures/organizations.json'), 'utf8'))
  const scripts = readFileSync(resolve(ROOT, 'fixtures/call-scripts.json'), 'utf8')
  const summaries = [...scripts.matchAll(/"summary": "([^"\\]+)"/g)].map(([, summary]) => summary!)
  return [
    'sk_sandbox_',
    ...organizations.flatMap(({ organization_id, organization_name, keys }) => [
      organization_id,
      organization_name,
      ...keys.map(({ key }) => key),
    ]),
    ...summaries,
    'setupSandboxWorker',
    'call-sandbox',
    '/_sandbox/',
    'faker',
    '[MSW]',
    'mockServiceWorker.js',
    msw.checksum,
  ]
}

/** Every file under a folder, by its path in it, with its text. */
async function filesOf(folder: string): Promise<Map<string, string>> {
  const names = await readdir(folder, { recursive: true, withFileTypes: true })
  const files = names.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
  return new Map(
    await Promise.all(files.map(async (file) => [relative(folder, file), await readFile(file, 'latin1')] as const)),
  )
}

/** The bytes of a build's scripts, as they are and gzipped: what a visitor downloads at most. */
function scriptBytes(files: Map<string, string>): { raw: number; gzip: number } {
  const scripts = [...files].filter(([name]) => name.endsWith('.js')).map(([, text]) => Buffer.from(text, 'latin1'))
  return {
    raw: scripts.reduce((sum, script) => sum + script.length, 0),
    gzip: scripts.reduce((sum, script) => sum + gzipSync(script).length, 0),
  }
}

describe('a production build of the example app, made as the README says', () => {
  let dist: string
  let production: Map<string, string>
  let withSandbox: Map<string, string>
  let said: string

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'call-sandbox-e2e-production-'))
    said = await step(
      'build the example app for production',
      'npm',
      ['run', 'build', '--', '--outDir', dist, '--emptyOutDir'],
      example.folder,
      {
        ...example.env,
        ...SHELL,
      },
    )
    production = await filesOf(dist)
    withSandbox = await filesOf(resolve(example.folder, 'dist'))
    const [plain, full] = [scriptBytes(production), scriptBytes(withSandbox)]
    console.log(
      `the example's scripts: ${plain.raw} bytes (${plain.gzip} gzipped) in production, ${full.raw} (${full.gzip}) with VITE_CALL_SANDBOX=1`,
    )
  })
  afterAll(() => dist && rm(dist, { recursive: true, force: true }))

  it('has no worker script, which the build with the sandbox has', () => {
    expect([...withSandbox.keys()]).toContain('mockServiceWorker.js')
    expect([...production.keys()].filter((name) => name.includes('mockServiceWorker'))).toEqual([])
    expect([...production.keys()].some((name) => name.startsWith('assets/') && name.endsWith('.js'))).toBe(true)
  })

  it('says nothing of the sandbox while it builds', () => expect(said).not.toContain('call-sandbox:'))

  it('warns while it builds where NODE_ENV=test makes it a development build, with the sandbox', async () => {
    // A CI job that sets NODE_ENV=test for its tests and then builds: Vite still says "for production".
    const ci = await mkdtemp(join(tmpdir(), 'call-sandbox-e2e-node-env-test-'))
    try {
      const output = await step(
        'build the example app with NODE_ENV=test',
        'npx',
        ['vite', 'build', '--outDir', ci],
        example.folder,
        {
          ...example.env,
          ...SHELL,
          NODE_ENV: 'test',
        },
      )
      expect(output).toContain('call-sandbox: this build has the sandbox in it')
      expect([...(await filesOf(ci)).keys()]).toContain('mockServiceWorker.js')
    } finally {
      await rm(ci, { recursive: true, force: true })
    }
  })

  it.each(sandboxMarks())('holds nowhere %s, which the build with the sandbox holds', (mark) => {
    const holding = (files: Map<string, string>) =>
      [...files].filter(([, text]) => text.includes(mark)).map(([name]) => name)
    expect(holding(withSandbox)).not.toEqual([])
    expect(holding(production)).toEqual([])
  })

  describe('in the browser', () => {
    let browser: Browser
    let server: { url: string; close: () => Promise<void> }
    beforeAll(async () => {
      browser = await launchChromium()
      server = await serveStatic(dist)
    })
    afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
    afterAll(async () => {
      await browser?.close()
      await server?.close()
    })

    it('registers no service worker and asks its own origin for the API, with no key', async () => {
      const page = await newPage(browser)
      const asked = page.waitForRequest((request) => request.url().endsWith('/v1/me'))
      const answered = page.waitForResponse((response) => response.url().endsWith('/v1/me'))
      await page.goto(server.url)
      const request = await asked
      expect(request.url()).toBe(`${server.url}/v1/me`)
      expect(await request.allHeaders()).not.toHaveProperty('authorization')
      // The static server's 404: no worker stood in for the API.
      expect((await answered).status()).toBe(404)
      expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((found) => found.length))).toBe(
        0,
      )
      await expect(page.locator('h1').textContent()).resolves.toBe('Calls inbox')
    })
  })
})

describe('the example app on its dev server (npm run dev)', () => {
  let browser: Browser
  let dev: { url: string; stop: () => Promise<void> }
  beforeAll(async () => {
    dev = await startDevServer(example.folder, { ...example.env, ...SHELL, VITE_CALL_SANDBOX_NOW: E2E_NOW })
    browser = await launchChromium()
  })
  afterEach(() => expect(pageErrors.splice(0)).toEqual([]))
  afterAll(async () => {
    await browser?.close()
    await dev?.stop()
  })

  it('answers from the service worker: the seeded calls, as the standalone server lists them', async () => {
    const page = await newPage(browser)
    await page.goto(dev.url)
    await page.locator('[data-call-id]').first().waitFor()
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
      `${dev.url}mockServiceWorker.js`,
    )
    expect(await workerIntegrity(page)).toEqual({ packageVersion: msw.version, checksum: msw.checksum })
    const { body } = await apiGet(apiUrl, '/v1/calls?limit=25')
    const rows = await page
      .locator('[data-call-id]')
      .evaluateAll((found) => found.map((row) => row.getAttribute('data-call-id')))
    expect(rows).toEqual(body.data.map((call: { id: string }) => call.id))
    await expect(page.locator('h1').textContent()).resolves.toBe('Harbor Dental Care')
  })
})

describe('the build with VITE_CALL_SANDBOX=1, served from elsewhere than this machine', () => {
  it('warns in the console that made-up data answers there, and on 127.0.0.1 does not', async () => {
    const site = `http://app.example:${new URL(appUrl).port}`
    // The site's name leads to this machine, and the browser treats it as secure, as a real site on https is.
    const browser = await launchChromium({
      args: ['--host-resolver-rules=MAP app.example 127.0.0.1', `--unsafely-treat-insecure-origin-as-secure=${site}`],
    })
    const warnings = async (url: string) => {
      const page = await newPage(browser)
      const said: string[] = []
      page.on('console', (message) => message.type() === 'warning' && said.push(message.text()))
      await page.goto(url)
      await page.locator('[data-call-id]').first().waitFor()
      return said.filter((text) => text.startsWith('call-sandbox:'))
    }
    try {
      expect(await warnings(site)).toEqual([
        expect.stringContaining('this page comes from app.example, not from this machine'),
      ])
      expect(await warnings(appUrl)).toEqual([])
      expect(pageErrors.splice(0)).toEqual([])
    } finally {
      await browser.close()
    }
  })
})
