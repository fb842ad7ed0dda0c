import { serve, send, closeConnections } from './bench/servers.mjs'
import { killChildren, stop, launch, waitFor } from './bench/children.mjs'
import { freePort } from './test/support/freePort.mjs'
import { mkdtempSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
const port = await freePort()
const single = launch('redis-server', ['test/support/durable-redis.conf', '--port', String(port), '--dir', mkdtempSync('/work/tmp-cluster/proto/s-')])
await waitFor(single, /Ready to accept/)
const url = `redis://127.0.0.1:${port}`
const W = Number(process.argv[2] ?? 4), N = Number(process.argv[3] ?? 50), servers = Number(process.argv[4] ?? 2)
try {
  const s = []
  for (let i = 0; i < servers; i++) s.push(await serve(['--store', url]))
  const t0 = performance.now()
  const statuses = {}
  await Promise.all(Array.from({ length: W }, async (_, w) => {
    for (let i = 0; i < N; i++) {
      const st = await send(s[w % servers].url, 'POST', '/sessions/long/v1/contacts', JSON.stringify({ phone: `+1418${w}${String(i).padStart(6, '0')}` }))
      statuses[st] = (statuses[st] ?? 0) + 1
    }
  }))
  const ms = performance.now() - t0
  console.log(`${W}x${N} on ${servers} servers: ${Math.round(ms)} ms, ${(ms / (W * N)).toFixed(1)} ms/write`, statuses)
  console.log(execFileSync('redis-cli', ['-p', String(port), 'HGETALL', 'call-sandbox:{long}:head'], { encoding: 'utf8' }).replace(/\n/g, ' '))
  console.log('LLEN', execFileSync('redis-cli', ['-p', String(port), 'LLEN', 'call-sandbox:{long}:log'], { encoding: 'utf8' }))
} finally { closeConnections(); killChildren() }
