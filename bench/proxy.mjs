// Proxy mode (npm run bench runs it last): what --proxy adds to a request.
// Two CLIs, each in its own process: an upstream sandbox, and a proxy in
// front of it. GET /v1/calls?limit=50 (73 KB, 50 calls held to the contract)
// through the proxy against the same request straight to the upstream, one
// request at a time over kept-alive connections, warmed up, alternated (A, B,
// B, A, ...), medians. The children are killed at the end, on an error too.
import { killChildren } from './children.mjs'
import { median } from './median.mjs'
import { serve } from './servers.mjs'

const PAGE = '/v1/calls?limit=50'
const HEADERS = { authorization: 'Bearer sk_sandbox_all' }
const WARM_UP = 300
const ROUNDS = 1_500

/** A CLI in a process of its own: its URL. Its compile cache is off: it would outlive the bench in the temp folder. */
/** @param {string[]} args */
async function serveAt(args) {
  return (await serve(args, { env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' } })).url
}

/**
 * One request, read to its end: its time in milliseconds.
 * @param {string} url
 * @param {(response: Response, body: ArrayBuffer) => void} check
 */
async function timed(url, check) {
  const started = performance.now()
  const response = await fetch(url, { headers: HEADERS })
  const body = await response.arrayBuffer()
  const elapsed = performance.now() - started
  check(response, body)
  return elapsed
}

try {
  const upstream = await serveAt([])
  const proxy = await serveAt(['--proxy', upstream])
  const direct = () =>
    timed(upstream + PAGE, (response) => {
      if (response.status !== 200) throw new Error(`the upstream answered ${response.status}`)
    })
  const proxied = () =>
    timed(proxy + PAGE, (response) => {
      const verdict = response.headers.get('x-sandbox-contract')
      if (response.status !== 200 || verdict !== 'ok')
        throw new Error(`the proxy answered ${response.status}, X-Sandbox-Contract: ${verdict}`)
    })
  for (let i = 0; i < WARM_UP; i++) {
    await direct()
    await proxied()
  }
  /** @type {number[]} */
  const directs = []
  /** @type {number[]} */
  const proxieds = []
  for (let i = 0; i < ROUNDS; i++) {
    // Alternated: A, B, B, A, ... so that neither always goes first.
    if (i % 2 === 0) {
      directs.push(await direct())
      proxieds.push(await proxied())
    } else {
      proxieds.push(await proxied())
      directs.push(await direct())
    }
  }
  // Each round's two requests ran side by side: their difference is what the proxy added, whatever the machine did
  // meanwhile.
  const added = median(proxieds.map((proxiedMs, i) => proxiedMs - (directs[i] ?? 0)))
  console.log('\nProxy mode: GET /v1/calls?limit=50, one request at a time, medians of %d each', ROUNDS)
  console.table([
    { what: 'straight to the upstream sandbox (ms)', median: median(directs).toFixed(2) },
    { what: 'through --proxy, checked against the contract (ms)', median: median(proxieds).toFixed(2) },
    { what: 'added by the proxy, per round (ms)', median: added.toFixed(2), note: 'goal < 2 ms' },
  ])
} finally {
  killChildren()
}
