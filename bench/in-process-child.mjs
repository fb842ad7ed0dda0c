// A child of the in-process figure (in-process.mjs): GET /v1/calls?limit=50 through msw's setupServer and a real
// fetch, in batches of 200, printed as JSON rates. `sandbox` or `bare` measures that contender alone, as a consumer's
// test file has it (the bare handler then pays nothing for the seeded world's heap); `both` measures both in this one
// process, alternating, as the figure did before.
//
//   node bench/in-process-child.mjs sandbox|bare|both BODY_FILE
import { readFileSync } from 'node:fs'
import { AUTH, ENTRY, NOW, PAGE } from './shared.mjs'

const [which = '', bodyFile = ''] = process.argv.slice(2)
if (!['sandbox', 'bare', 'both'].includes(which)) throw new Error(`No contender ${which}: sandbox, bare or both.`)
const body = readFileSync(bodyFile)
const url = `https://api.example.com${PAGE}`
const { setupServer } = await import('msw/node')
const { http, HttpResponse } = await import('msw')
const bare = [
  http.get(
    'https://api.example.com/v1/calls',
    () => new HttpResponse(body, { headers: { 'content-type': 'application/json' } }),
  ),
]
/** @type {import('msw').RequestHandler[] | undefined} */
let sandboxHandlers
if (which !== 'bare') {
  const { createSandbox } = await import(ENTRY)
  const sandbox = createSandbox({ seed: 1, now: NOW })
  await sandbox.ready
  sandboxHandlers = sandbox.handlers
}
const server = setupServer()
server.listen({ onUnhandledRequest: 'error' })

async function get() {
  const response = await fetch(url, { headers: { Authorization: AUTH } })
  if (response.status !== 200) throw new Error(`${url}: ${response.status}`)
  return response.arrayBuffer()
}

/** Requests per second over `requests` in a row, answered by `handlers`. @param {import('msw').RequestHandler[]} handlers */
async function batch(handlers, requests = 200) {
  server.resetHandlers(...handlers)
  const start = performance.now()
  for (let i = 0; i < requests; i++) {
    const bytes = (await get()).byteLength
    if (bytes !== body.length) throw new Error(`${url}: ${bytes} bytes, not the ${body.length} of ${bodyFile}`)
  }
  return requests / ((performance.now() - start) / 1000)
}

try {
  /** @type {number[]} */
  const ours = []
  /** @type {number[]} */
  const theirs = []
  if (sandboxHandlers) await batch(sandboxHandlers, 300)
  if (which !== 'sandbox') await batch(bare, 300)
  for (let i = 0; i < 12; i++) {
    const pair = [
      async () => sandboxHandlers && which !== 'bare' && ours.push(await batch(sandboxHandlers)),
      async () => which !== 'sandbox' && theirs.push(await batch(bare)),
    ]
    for (const measure of i % 2 === 0 ? pair : pair.reverse()) await measure()
  }
  process.stdout.write(JSON.stringify({ ours, theirs }))
} finally {
  server.close()
}
