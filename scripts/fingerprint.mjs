// The fingerprint of the seeded sandbox: a fixed list of requests to every plane (good ones, bad ones, writes, a
// session), answered in process by the built package, each answer's status, headers and body in one digest.
// A refactor that must not change what the sandbox answers keeps the digest: `npm run build`, then
// `node scripts/fingerprint.mjs` before and after (`--print` shows every answer, to diff the two).
// Request ids are random, so they are replaced by their order of appearance; journal durations by 0, and a
// session's wall-clock times by a mark.
import { createHash } from 'node:crypto'
import { answer, createSandbox } from '../dist/esm/index.js'

const BASE = 'http://sandbox.test'
const ALL = { Authorization: 'Bearer sk_sandbox_all' }
const JSON_BODY = { ...ALL, 'Content-Type': 'application/json' }

/** [method, path, headers, body] in order; a function gets the answers so far, for cursors and ids. */
const requests = [
  ['GET', '/v1/me', ALL],
  ['GET', '/v1/me', {}],
  ['GET', '/v1/me', { Authorization: 'Bearer nope' }],
  ['GET', '/v1/me', { Authorization: 'Basic x' }],
  ['GET', '/v1/calls?limit=3', ALL],
  (seen) => ['GET', `/v1/calls?limit=3&cursor=${seen.at(-1).json.next_cursor}`, ALL],
  ['GET', '/v1/calls?limit=2&status=completed', ALL],
  ['GET', '/v1/calls?limit=0', ALL],
  ['GET', '/v1/calls?limit=2&limit=3', ALL],
  ['GET', '/v1/calls?nope=1', ALL],
  ['GET', '/v1/calls?cursor=garbage', ALL],
  ['GET', '/v1/calls?since=2026-11-01T00:00:00Z&limit=2', ALL],
  (seen) => ['GET', `/v1/calls/${seen[4].json.data[0].id}`, ALL],
  ['GET', '/v1/calls/00000000-0000-4000-8000-000000000000', ALL],
  ['GET', '/v1/calls/not-a-uuid', ALL],
  ['GET', '/v1/contacts?limit=2', ALL],
  ['GET', '/v1/leads?limit=2', ALL],
  ['GET', '/v1/appointments?limit=2', ALL],
  ['GET', '/v1/contacts?limit=2', { Authorization: 'Bearer sk_sandbox_calls' }],
  ['DELETE', '/v1/calls', ALL],
  ['GET', '/v1/call', ALL],
  ['GET', '/v1', ALL],
  ['GET', '/v1/me', { ...ALL, Prefer: 'code=503' }],
  ['GET', '/v1/me', { ...ALL, Prefer: 'code=999' }],
  ['GET', '/v1/calls', { ...ALL, Prefer: 'code=405' }],
  ['POST', '/v1/contacts', JSON_BODY, '{"phone":"+14155550199","name":"Ada Fingerprint"}'],
  ['POST', '/v1/contacts', JSON_BODY, '{"phone":"+14155550199","name":"Ada Again"}'],
  ['POST', '/v1/contacts', JSON_BODY, '{"phone":"nope"}'],
  ['POST', '/v1/contacts', { ...JSON_BODY, Authorization: 'Bearer sk_sandbox_readonly' }, '{}'],
  ['POST', '/v1/contacts', JSON_BODY, '{"phone":'],
  ['POST', '/v1/contacts', ALL, '{}'],
  ['POST', '/v1/contacts', JSON_BODY, '[]'],
  ['GET', '/v1/contacts?limit=1', ALL],
  ['GET', '/_sandbox/health'],
  ['GET', '/_sandbox/clock'],
  ['POST', '/_sandbox/clock', { 'Content-Type': 'application/json' }, '{"advance_seconds":900}'],
  ['POST', '/_sandbox/clock', { 'Content-Type': 'application/json' }, '{"now":"1960-01-01T00:00:00Z"}'],
  ['POST', '/_sandbox/calls', { 'Content-Type': 'application/json' }, '{}'],
  ['POST', '/_sandbox/calls', { 'Content-Type': 'application/json' }, '{"reason":"nope"}'],
  ['POST', '/_sandbox/calls', { 'Content-Type': 'application/json' }, '{"organization_id":"nope"}'],
  ['GET', '/_sandbox/scenarios'],
  ['GET', '/_sandbox/requests?limit=3'],
  ['GET', '/_sandbox/requests?limit=x'],
  ['GET', '/_sandbox/usage'],
  ['GET', '/_sandbox/drift'],
  ['GET', '/_sandbox/nope'],
  ['DELETE', '/_sandbox/reset'],
  ['GET', '/v1/calls?limit=2', ALL],
  ['POST', '/_sandbox/reset', { 'Content-Type': 'application/json' }, '{"scenario":"empty"}'],
  ['GET', '/v1/calls?limit=2', ALL],
  ['POST', '/_sandbox/reset'],
  ['POST', '/_sandbox/reset', { 'Content-Type': 'text/plain' }, 'x'],
  ['GET', '/_sandbox/sessions'],
  ['POST', '/_sandbox/sessions', { 'Content-Type': 'application/json' }, '{"name":"fp-1","seed":3}'],
  ['POST', '/_sandbox/sessions', { 'Content-Type': 'application/json' }, '{"name":"fp-1"}'],
  ['POST', '/_sandbox/sessions', { 'Content-Type': 'application/json' }, '{"name":"Bad Name"}'],
  ['GET', '/sessions/fp-1/v1/calls?limit=2', ALL],
  ['POST', '/sessions/fp-1/v1/contacts', JSON_BODY, '{"phone":"+14155550123"}'],
  ['GET', '/sessions/fp-1/_sandbox/health'],
  ['GET', '/sessions/fp-1/_sandbox/sessions'],
  ['GET', '/sessions/fp-1/nope'],
  ['GET', '/sessions/Bad%20Name/v1/me', ALL],
  ['GET', '/sessions/fp-1/openapi.json'],
  ['DELETE', '/_sandbox/sessions/default'],
  ['DELETE', '/_sandbox/sessions/fp-1'],
  ['DELETE', '/_sandbox/sessions/fp-1'],
  ['DELETE', '/_sandbox/sessions/Bad%20Name'],
  ['PUT', '/_sandbox/sessions'],
  ['GET', '/openapi.json'],
  ['POST', '/openapi.json'],
  ['GET', '/_sandbox/requests?limit=5'],
]

async function fingerprint() {
  const sandbox = createSandbox({ seed: 42, now: '2026-11-20T12:00:00Z', calls: 60 })
  await sandbox.ready
  const ids = new Map()
  const normalize = (text) =>
    text
      .replace(/req_[0-9A-Za-z]+/g, (id) => {
        if (!ids.has(id)) ids.set(id, `req_#${ids.size}`)
        return ids.get(id)
      })
      .replace(/"duration_ms":[0-9.]+/g, '"duration_ms":0')
      // A session's created_at, last_used_at and expires_at are the wall clock's, not the sandbox's.
      .replace(/"(created_at|last_used_at|expires_at)":"[^"]+"/g, '"$1":"(wall clock)"')
  const seen = []
  const hash = createHash('sha256')
  const lines = []
  for (const entry of requests) {
    const [method, path, headers = {}, body] = typeof entry === 'function' ? entry(seen) : entry
    const response = await answer(
      sandbox,
      new Request(BASE + path, { method, headers, body }),
      sandbox.sessions,
      sandbox.proxy,
    )
    const text = await response.text()
    let json
    try {
      json = JSON.parse(text)
    } catch {}
    seen.push({ status: response.status, json })
    const head = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')
    const line = normalize(`${method} ${path}\n${response.status}\n${head}\n${text}\n`)
    lines.push(line)
    hash.update(line)
  }
  return { digest: hash.digest('hex'), lines }
}

const { digest, lines } = await fingerprint()
if (process.argv.includes('--print')) console.log(lines.join('\n'))
console.log(`fingerprint ${digest} (${lines.length} answers)`)
