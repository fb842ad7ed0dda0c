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
    expect(body.data.kinds).toEqual(
      KINDS.map((kind) => ({
        kind,
        singular: RESOURCES[kind].singular,
        columns: RESOURCES[kind].columns,
        reads_one: routes.some(
          (route) => route.method === 'GET' && route.path === `/v1/${kind}/:${RESOURCES[kind].singular}_id`,
        ),
        links: { ...RESOURCES[kind].links },
      })),
    )
    // Each link names a field of the record and a kind the API reads one record of: the console opens it.
    for (const { kind, links } of body.data.kinds as Array<{
      kind: (typeof KINDS)[number]
      links: Record<string, string>
    }>) {
      for (const [field, target] of Object.entries(links)) {
        expect(Object.keys(RESOURCES[kind].resource.shape)).toContain(field)
        expect(body.data.kinds.find((choice: { kind: string }) => choice.kind === target).reads_one).toBe(true)
      }
    }
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
    // The keys, each with its scopes (those a request is answered with), as GET /_sandbox/keys gives them.
    expect(body.data.keys.map(({ key, scopes }: { key: string; scopes: string[] }) => ({ key, scopes }))).toEqual(
      api.sandbox.apiKeys.map(({ key, scopes }) => ({ key, scopes })),
    )
    expect(body.data.keys).toEqual((await api.request('/_sandbox/keys', { key: null })).body.data)
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

  it('offer only fault rules that POST /_sandbox/faults takes, and every one it takes', async () => {
    const { body } = await api.request('/_sandbox/choices', { key: null })
    const { methods, outcomes, statuses, errors } = body.data.fault_rules
    expect(methods).toEqual(['GET', 'POST'])
    expect(outcomes).toEqual(['status', 'delay_ms', 'error'])
    expect(statuses).toContain(503)
    expect(errors).toEqual(['network'])
    const rules = [
      ...methods.map((method: string) => ({ method, status: 500 })),
      ...statuses.map((status: number) => ({ status })),
      ...errors.map((error: string) => ({ error })),
    ]
    for (const rule of rules) {
      expect(
        (await postJson(api, '/_sandbox/faults', { path: '/v1/calls', ...rule })).status,
        JSON.stringify(rule),
      ).toBe(201)
    }
    // A status the choices leave out is one the sandbox refuses: the list is not merely a subset.
    expect((await postJson(api, '/_sandbox/faults', { path: '/v1/calls', status: 502 })).status).toBe(422)
    await api.request('/_sandbox/faults', { method: 'DELETE', key: null })
  })

  it("are the console views' only options: they type none of their own", () => {
    const page = readFileSync(new URL('../console/index.html', import.meta.url), 'utf8')
    const views = ['world', 'controls', 'faultRules', 'settings', 'sessions', 'usage'].map((name) =>
      readFileSync(new URL(`../console/${name}.js`, import.meta.url), 'utf8'),
    )
    // The page holds the frame only: each view builds its forms from the choices.
    expect(page).not.toMatch(/data-choices|<datalist/)
    const typed = [...CallStatus.options, ...ScenarioName.options.filter((name) => name !== 'default'), 'network']
    for (const view of views) for (const value of typed) expect(view).not.toContain(`'${value}'`)
    expect([page, ...views].join()).not.toContain('missed')
  })
})
