import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { everyControlEndpoint } from '../src/control/controlPlane.js'
import { routes } from '../src/http/routes.js'
import { openApiDocument } from '../src/openapi/openApiDocument.js'
import {
  CallStatus,
  FILTER_NAMES,
  KINDS,
  LIST_FILTERS,
  LIST_QUERIES,
  RESOURCES,
  ScenarioName,
  Scope,
} from '../src/schemas/index.js'
import { businessTypes } from '../src/seed/fixtures.js'
import { postJson } from './support/control.js'
import { inProcess, type Transport } from './support/transports.js'

/*
 * The registry of resources (src/schemas/registry.ts) and what is made from it: the list queries, the routes, the
 * OpenAPI document and the console's choices. A kind, a filter or a value added to it must show up in each.
 */

/** A value each filter takes: every value of an enum, a number for a phone. */
function acceptedValues(filter: { value: { options?: readonly string[] } }): readonly string[] {
  return filter.value.options ?? ['+14155550123']
}

describe('the registry of resources', () => {
  it.each(KINDS)("makes the %s list's query from its filters, each one accepted and typed as stored", (kind) => {
    const filters = Object.entries(LIST_FILTERS[kind])
    expect(Object.keys(LIST_QUERIES[kind].shape).sort()).toEqual(
      ['cursor', 'limit', 'since', ...filters.map(([name]) => name)].sort(),
    )
    for (const [name, filter] of filters) {
      expect(Object.keys(RESOURCES[kind].resource.shape)).toContain(filter.field)
      for (const value of acceptedValues(filter)) {
        expect(LIST_QUERIES[kind].safeParse({ [name]: value }).success, `${kind}?${name}=${value}`).toBe(true)
      }
      expect(LIST_QUERIES[kind].safeParse({ [name]: 'not-a-value' }).success, `${kind}?${name}=not-a-value`).toBe(false)
    }
  })

  it('has a list route per kind, a record route where it names one, each with its read scope', () => {
    const endpoints = routes.map((route) => `${route.method} ${route.path}`)
    for (const kind of KINDS) {
      const { singular, getOne, scopes } = RESOURCES[kind]
      const list = routes.find((route) => route.method === 'GET' && route.path === `/v1/${kind}`)
      expect(list?.requires).toEqual({ scope: scopes[0] })
      expect(list?.query).toBe(LIST_QUERIES[kind])
      expect(endpoints.includes(`GET /v1/${kind}/:${singular}_id`)).toBe(getOne !== undefined)
    }
  })

  it('takes its scopes from every kind, read scopes first', () => {
    expect(Scope.options).toEqual(['calls:read', 'contacts:read', 'contacts:write', 'leads:read', 'appointments:read'])
    expect(FILTER_NAMES).toEqual(['status', 'phone', 'urgency'])
  })
})

describe('the OpenAPI document made from the registry', () => {
  let api: Transport
  beforeAll(async () => {
    api = await inProcess()
  })
  afterAll(() => api.close())

  it('has every route of the API and of the control plane, with its method', () => {
    const { paths } = openApiDocument(api.sandbox) as { paths: Record<string, Record<string, unknown>> }
    for (const route of [...routes, ...everyControlEndpoint]) {
      const path = route.path.replace(/:(\w+)/g, '{$1}')
      expect(paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined()
    }
  })

  it("names each kind's schema with an example, and tags each kind's endpoints", () => {
    const document = openApiDocument(api.sandbox) as {
      tags: Array<{ name: string }>
      paths: Record<string, Record<string, { tags: string[] }>>
      components: { schemas: Record<string, { examples?: unknown[] }> }
    }
    expect(document.tags.map(({ name }) => name)).toEqual([
      ...KINDS.map((kind) => RESOURCES[kind].tag),
      'Account',
      'Sandbox control',
    ])
    for (const kind of KINDS) {
      expect(document.components.schemas[RESOURCES[kind].name]?.examples, kind).toHaveLength(1)
      expect(document.paths[`/v1/${kind}`]?.get?.tags).toEqual([RESOURCES[kind].tag])
    }
  })
})

describe("the console's choices (GET /_sandbox/choices)", () => {
  let api: Transport
  beforeAll(async () => {
    api = await inProcess()
  })
  afterAll(() => api.close())

  it("equal the values of the schemas and fixtures the sandbox checks with, and the registry's columns", async () => {
    const { status, body } = await api.request('/_sandbox/choices', { key: null })
    expect(status).toBe(200)
    expect(body.data.call_statuses).toEqual(CallStatus.options)
    expect(body.data.scenarios).toEqual(ScenarioName.options)
    expect(body.data.kinds).toEqual(KINDS.map((kind) => ({ kind, columns: RESOURCES[kind].columns })))
    for (const { kind, columns } of body.data.kinds as Array<{ kind: (typeof KINDS)[number]; columns: string[] }>) {
      for (const column of columns) expect(Object.keys(RESOURCES[kind].resource.shape)).toContain(column)
    }
    expect(body.data.organizations).toEqual(
      api.sandbox.organizations.map(({ organization_id, organization_name, business_type }) => ({
        organization_id,
        organization_name,
        business_type,
        reasons: businessTypes.get(business_type)!.reasons.map(({ id }) => id),
      })),
    )
    // The keys it issued, whole, each with its scopes: those a request is answered with.
    expect(body.data.keys).toEqual(api.sandbox.apiKeys.map(({ key, scopes }) => ({ key, scopes })))
    expect(body.data.keys.find(({ key }: { key: string }) => key === 'sk_sandbox_calls').scopes).toEqual(['calls:read'])
  })

  it('offer only call statuses and reasons that POST /_sandbox/calls takes', async () => {
    const { body } = await api.request('/_sandbox/choices', { key: null })
    const [first] = body.data.organizations
    for (const status of body.data.call_statuses) {
      expect((await postJson(api, '/_sandbox/calls', { status })).status, status).toBe(201)
    }
    for (const reason of first.reasons) {
      expect((await postJson(api, '/_sandbox/calls', { reason })).status, reason).toBe(201)
    }
  })

  it("are the console page's only options: it types none of its own", () => {
    const page = readFileSync(new URL('../console/index.html', import.meta.url), 'utf8')
    for (const select of page.match(/<select name="\w+" data-choices="\w+">.*?<\/select>/g) ?? []) {
      expect(select).toMatch(/<select[^>]*>(<option value="">default<\/option>)?<\/select>/)
    }
    expect(page.match(/data-choices="(\w+)"/g)).toEqual([
      'data-choices="kinds"',
      'data-choices="scenarios"',
      'data-choices="call_statuses"',
    ])
    expect(page).not.toContain('missed')
  })
})
