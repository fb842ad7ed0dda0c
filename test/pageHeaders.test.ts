/**
 * The headers of the pages the standalone server serves to a browser (the
 * console and /docs), and the one every JSON answer carries: whatever text
 * reaches a page runs nothing, and no other origin can frame it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server/startServer.js'
import { NOW } from './support/transports.js'

let server: RunningServer

beforeAll(async () => {
  server = await startServer({ port: 0, quiet: true, now: NOW })
})
afterAll(async () => {
  await server?.close()
})

/** A Content-Security-Policy as its directives: `script-src 'self'` → `{ 'script-src': ["'self'"] }`. */
function directivesOf(policy: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (policy ?? '')
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name, sources]),
  )
}

const PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

/** The directives both pages hold to: scripts and styles of their own origin only, and never framed. */
function expectLockedDown(directives: Record<string, string[]>, path: string): void {
  expect(directives['default-src'], path).toEqual(["'none'"])
  expect(directives['script-src'], path).toEqual(["'self'"])
  expect(directives['style-src'], path).toEqual(["'self'"])
  expect(directives['connect-src'], path).toEqual(["'self'"])
  expect(directives['img-src'], path).toEqual(["'self'", 'data:'])
  expect(directives['object-src'], path).toEqual(["'none'"])
  expect(directives['base-uri'], path).toEqual(["'none'"])
  expect(directives['form-action'], path).toEqual(["'none'"])
  expect(directives['frame-ancestors'], path).toEqual(["'none'"])
}

describe('the console, at the bare root and in a session', () => {
  it.each([
    '/_sandbox/console',
    '/_sandbox/console/',
    '/_sandbox/console/console.js',
    '/_sandbox/console/console.css',
    '/sessions/headers-1/_sandbox/console/',
    '/sessions/headers-1/_sandbox/console/console.js',
  ])('answers %s with no inline script or style, not framable, not sniffed', async (path) => {
    const response = await fetch(server.url + path, { redirect: 'manual' })
    expect(response.status, path).toBeLessThan(400)
    const directives = directivesOf(response.headers.get('content-security-policy'))
    expectLockedDown(directives, path)
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(response.headers.get(name), name).toBe(value)
  })

  it('preloads every module of its own, each one the server serves, and every file it links is served', async () => {
    const page = readFileSync(new URL('../console/index.html', import.meta.url), 'utf8')
    const modules = readdirSync(new URL('../console/', import.meta.url)).filter(
      (name) => name.endsWith('.js') && name !== 'console.js',
    )
    const preloaded = [...page.matchAll(/<link rel="modulepreload" href="\.\/([^"]+)">/g)].map(([, name]) => name)
    expect(preloaded.sort()).toEqual(modules.sort())
    for (const [, name] of page.matchAll(/(?:href|src)="\.\/([^"]+)"/g)) {
      expect((await fetch(`${server.url}/_sandbox/console/${name}`)).status, name).toBe(200)
    }
  })

  it('has no inline script, style or event handler in its page, which its policy would block', () => {
    const page = readFileSync(new URL('../console/index.html', import.meta.url), 'utf8')
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, text] of scripts) {
      expect(attributes).toMatch(/\bsrc="\.\/[^"]+"/)
      expect(text).toBe('')
    }
    expect(page).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i)
  })
})

describe('the API reference at /docs', () => {
  it.each(['/docs', '/docs/', '/docs/swagger-ui-init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css'])(
    'answers %s with no inline script or style, not framable, not sniffed',
    async (path) => {
      const response = await fetch(server.url + path, { redirect: 'manual' })
      expect(response.status, path).toBeLessThan(400)
      const directives = directivesOf(response.headers.get('content-security-policy'))
      expectLockedDown(directives, path)
      for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(response.headers.get(name), name).toBe(value)
    },
  )

  it('starts Swagger UI from a file, keeping no key typed into it and asking no validator elsewhere', async () => {
    const page = await (await fetch(`${server.url}/docs/`)).text()
    expect(page).not.toMatch(/<script>|<script\b(?![^>]*\bsrc=)/)
    const init = await (await fetch(`${server.url}/docs/swagger-ui-init.js`)).text()
    expect(init).toContain('"persistAuthorization": false')
    expect(init).toContain('"validatorUrl": null')
  })
})

describe('nosniff on every answer', () => {
  it.each([
    ['an API answer', '/v1/calls?limit=1', { Authorization: 'Bearer sk_sandbox_all' }],
    ['an API error', '/v1/calls?limit=0', { Authorization: 'Bearer sk_sandbox_all' }],
    ['the control plane', '/_sandbox/health', {}],
    ['the OpenAPI document', '/openapi.json', {}],
    ['a path of no plane', '/nothing-here', {}],
    ['a file the reference does not have', '/docs/nothing.js', {}],
    ['a file the console does not have', '/_sandbox/console/nothing.js', {}],
    ['the metrics', '/_sandbox/metrics', {}],
  ])('carries X-Content-Type-Options: nosniff on %s', async (_name, path, headers) => {
    const response = await fetch(server.url + path, { headers })
    await response.arrayBuffer()
    expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
  })
})
