import { describe, expect, it } from 'vitest'
import type { Scope } from '../schemas/index.js'
import { expectationOf } from './expectationOf.js'

const ID = '3f2b8c1e-9d4a-4e7b-8c2f-1a2b3c4d5e6f'
const ALL: Scope[] = ['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read']

interface Case {
  request: string
  key?: string | null
  body?: string
  contentType?: string
  /** The key's scopes, as GET /v1/me told them; undefined: not known. */
  scopes?: Scope[]
  statuses: number[]
  because?: RegExp
  wellFormed?: boolean
}

/** What the contract lets the upstream answer, from the request alone, in the contract's order of checks. */
const CASES: Case[] = [
  { request: 'GET /v1/calls', statuses: [200, 401, 403], wellFormed: true },
  { request: 'GET /v1/calls', scopes: ALL, statuses: [200, 401], wellFormed: true },
  { request: 'GET /v1/me', statuses: [200, 401], wellFormed: true },
  { request: 'GET /v1/nothing', key: null, statuses: [404], because: /No endpoint at \/v1\/nothing/ },
  { request: 'DELETE /v1/calls', key: null, statuses: [405], because: /does not take DELETE/ },
  { request: 'GET /v1/calls', key: null, statuses: [401], because: /no Authorization/ },
  { request: 'GET /v1/calls?limit=500', key: 'Basic abc', statuses: [401] },
  { request: 'GET /v1/leads', scopes: ['calls:read'], statuses: [403, 401], because: /lacks leads:read/ },
  { request: 'GET /v1/leads?limit=500', scopes: ['calls:read'], statuses: [403, 401] },
  { request: 'GET /v1/calls?limit=500', statuses: [400, 401, 403], because: /limit must be an integer from 1 to 100/ },
  { request: 'GET /v1/calls?limit=500', scopes: ALL, statuses: [400, 401] },
  { request: 'GET /v1/calls?colour=red', scopes: ALL, statuses: [400, 401], because: /colour is not a parameter/ },
  { request: 'GET /v1/calls?status=done', scopes: ALL, statuses: [400, 401], because: /status must be one of/ },
  { request: 'GET /v1/calls?limit=2&limit=3', scopes: ALL, statuses: [400, 401], because: /given 2 times/ },
  { request: 'GET /v1/calls?cursor=anything', scopes: ALL, statuses: [200, 401, 400], wellFormed: true },
  { request: `GET /v1/calls/${ID}`, scopes: ALL, statuses: [200, 401, 404], wellFormed: true },
  { request: 'GET /v1/calls/not-a-uuid', scopes: ALL, statuses: [400, 401], because: /call_id must be a UUID/ },
  {
    request: 'POST /v1/contacts',
    scopes: ALL,
    body: '{"phone":"+14155550123"}',
    statuses: [201, 401, 409],
    wellFormed: true,
  },
  {
    request: 'POST /v1/contacts',
    scopes: ALL,
    body: '{"phone":"+14155550123"}',
    contentType: 'text/plain',
    statuses: [415, 401],
  },
  { request: 'POST /v1/contacts', scopes: ALL, body: '{"phone":', statuses: [400, 401], because: /not valid JSON/ },
  {
    request: 'POST /v1/contacts',
    scopes: ALL,
    body: '{"phone":"12","id":"x"}',
    statuses: [422, 401],
    because: /2 bad fields/,
  },
  { request: 'POST /v1/contacts', scopes: ['contacts:read'], body: '{"phone":"12"}', statuses: [403, 401] },
]

describe('expectationOf: the statuses the contract gives a request, judged from the request alone', () => {
  for (const {
    request,
    key = 'Bearer sk_live_key',
    body,
    contentType = 'application/json',
    scopes,
    statuses,
    because,
    wellFormed = false,
  } of CASES) {
    const label = `${request}${key === 'Bearer sk_live_key' ? '' : ` (Authorization: ${key})`}${scopes ? ` with scopes ${scopes.join(' ')}` : ''}${body ? ` ${body}` : ''} → ${statuses.join(' or ')}`
    it(label, async () => {
      const [method, target] = request.split(' ') as [string, string]
      const url = new URL(target, 'https://api.example.com')
      const headers: Record<string, string> = {
        ...(key === null ? {} : { authorization: key }),
        ...(body === undefined ? {} : { 'content-type': contentType }),
      }
      const bytes = body === undefined ? undefined : new TextEncoder().encode(body)
      const expectation = await expectationOf(new Request(url, { method, headers }), url.pathname, url, bytes, scopes)
      expect(expectation.statuses).toEqual(statuses)
      expect(expectation.wellFormed).toBe(wellFormed)
      if (because) expect(expectation.because).toMatch(because)
    })
  }
})
