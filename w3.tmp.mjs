import { startCluster } from './test/support/redisCluster.mjs'
import { serve, send, closeConnections } from './bench/servers.mjs'
import { killChildren } from './bench/children.mjs'
const replicas = Number(process.argv[2] ?? 1)
const cluster = await startCluster({ primaries: 3, replicas })
let phones = 0
async function p50(url, n, root) {
  const t = []
  for (let i = 0; i < n; i++) {
    const s = performance.now()
    const status = await send(url, 'POST', `${root}/v1/contacts`, JSON.stringify({ phone: `+1${2000000000 + phones++}` }))
    if (status !== 201) throw new Error(status)
    t.push(performance.now() - s)
  }
  t.sort((a, b) => a - b)
  return t[Math.floor(n / 2)].toFixed(1)
}
try {
  for (const flag of ['0', 'auto']) {
    const a = await serve(['--store', cluster.url, '--store-replicas', flag])
    console.log(`replicas=${replicas} --store-replicas ${flag}: p50`, await p50(a.url, 100, '/sessions/x'), await p50(a.url, 100, '/sessions/y'))
  }
} finally { closeConnections(); killChildren(); await cluster.stop() }
