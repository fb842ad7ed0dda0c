import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server/startServer.js'
import { NOW } from './support/transports.js'

/*
 * A typed client made from the served /openapi.json, as an integrator makes
 * one: openapi-typescript writes the types, a small client module uses them
 * with openapi-fetch, the TypeScript compiler checks it under `strict`, and
 * the same module then walks a short journey against the standalone server.
 */

/** The client an integrator writes: every path, parameter and field is checked against the generated `paths`. */
const CLIENT = `
import createClient from 'openapi-fetch'
import type { components, paths } from './api'

type Schemas = components['schemas']
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never

/** The resources a client works with, for the test to look into. */
export interface Resources {
  Call: Schemas['Call']
  CallWithMessages: Schemas['CallWithMessages']
  Contact: Schemas['Contact']
  Lead: Schemas['Lead']
  Appointment: Schemas['Appointment']
  Organization: Schemas['Organization']
  ErrorEnvelope: Schemas['ErrorEnvelope']
  CallList: Json<paths['/v1/calls']['get']['responses'][200]>
  ContactList: Json<paths['/v1/contacts']['get']['responses'][200]>
  LeadList: Json<paths['/v1/leads']['get']['responses'][200]>
  AppointmentList: Json<paths['/v1/appointments']['get']['responses'][200]>
}

export async function journey(baseUrl: string) {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer sk_sandbox_all' } })

  const me = await api.GET('/v1/me')
  if (!me.data) throw new Error('GET /v1/me answered ' + me.response.status)
  const organization: Resources['Organization'] = me.data.data

  // Completed calls, three pages of five, each page from the cursor of the one before.
  const pages: Resources['Call'][][] = []
  let cursor: string | undefined
  for (let page = 0; page < 3; page++) {
    const { data, error } = await api.GET('/v1/calls', { params: { query: { status: 'completed', limit: 5, cursor } } })
    if (error) throw new Error(error.error.code + ': ' + error.error.message)
    pages.push(data.data)
    if (data.next_cursor === null) break
    cursor = data.next_cursor
  }

  const first = pages[0]?.[0]
  if (!first) throw new Error('no completed call')
  const one = await api.GET('/v1/calls/{call_id}', { params: { path: { call_id: first.id } } })
  if (!one.data) throw new Error('GET /v1/calls/{call_id} answered ' + one.response.status)
  const call: Resources['CallWithMessages'] = one.data.data
  const said = call.messages.map(({ role, content }) => (role === 'assistant' ? 'Assistant: ' : 'Caller: ') + content)

  const created = await api.POST('/v1/contacts', { body: { phone: '+14155550188', name: 'Dana Whitfield', email: 'dana@example.com' } })
  const again = await api.POST('/v1/contacts', { body: { phone: '+14155550188' } })
  const details = again.error?.error.details
  const takenBy = details !== undefined && !Array.isArray(details) ? details.contact_id : undefined

  const narrow = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer sk_sandbox_calls' } })
  const leads = await narrow.GET('/v1/leads', { params: { query: { urgency: 'high' } } })

  return {
    organization,
    pages: pages.map((calls) => calls.map(({ id, status, created_at }) => ({ id, status, created_at }))),
    call: { id: call.id, transcript: call.transcript, said: said.join('\\n'), ended_at: call.ended_at },
    created: { status: created.response.status, location: created.response.headers.get('Location'), contact: created.data?.data },
    again: { status: again.response.status, code: again.error?.error.code, takenBy },
    leads: { status: leads.response.status, code: leads.error?.error.code, details: leads.error?.error.details },
  }
}
`

/** Each line a client must not get past the compiler with, and what the compiler must say of it. */
const MISTAKES = [
  {
    mistake: 'a field a call does not have',
    line: `export const a = (call: Schemas['Call']) => call.caller_number`,
    says: "Property 'caller_number' does not exist",
  },
  {
    mistake: 'a status no call has',
    line: `export const b: Schemas['Call']['status'] = 'done'`,
    says: `Type '"done"' is not assignable`,
  },
  {
    mistake: 'a query parameter the endpoint does not take',
    line: `export const c = () => api.GET('/v1/calls', { params: { query: { state: 'completed' } } })`,
    says: "'state' does not exist",
  },
  {
    mistake: 'a path the API does not have',
    line: `export const d = () => api.GET('/v1/call', {})`,
    says: `Argument of type '"/v1/call"' is not assignable`,
  },
  {
    mistake: 'a contact without its phone',
    line: `export const e = () => api.POST('/v1/contacts', { body: { name: 'Dana' } })`,
    says: "Property 'phone' is missing",
  },
  {
    mistake: 'an id taken for a number',
    line: `export const f = (lead: Schemas['Lead']): number => lead.contact_id`,
    says: "Type 'string' is not assignable to type 'number'",
  },
]

const WRONG = `
import createClient from 'openapi-fetch'
import type { components, paths } from './api'

type Schemas = components['schemas']
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:4010' })
${MISTAKES.map(({ line }) => line).join('\n')}
`

let server: RunningServer
let dir: string
let program: ts.Program

beforeAll(async () => {
  server = await startServer({ now: NOW, port: 0, quiet: true })
  const document = await (await fetch(`${server.url}/openapi.json`)).json()
  dir = mkdtempSync(join(tmpdir(), 'call-sandbox-client-'))
  // The project's packages, as an integrator's project has its own.
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir')
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(document)))
  writeFileSync(join(dir, 'client.mts'), CLIENT)
  writeFileSync(join(dir, 'wrong.mts'), WRONG)
  program = ts.createProgram({
    rootNames: [join(dir, 'client.mts'), join(dir, 'wrong.mts')],
    options: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      outDir: dir,
    },
  })
})

afterAll(async () => {
  await server?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const diagnosticsOf = (file: string) =>
  ts.getPreEmitDiagnostics(program, program.getSourceFile(join(dir, file))).map((diagnostic) => {
    const line =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
        : 0
    return { line, code: diagnostic.code, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n') }
  })

describe('a client generated from /openapi.json (openapi-typescript, openapi-fetch)', () => {
  it('type-checks under strict with no diagnostic', () => {
    expect(diagnosticsOf('client.mts')).toEqual([])
  })

  it('refuses a client that gets the API wrong: one error a mistake, on its line, saying what is wrong', () => {
    const firstLine = WRONG.split('\n').indexOf(MISTAKES[0]!.line) + 1
    const found = diagnosticsOf('wrong.mts')
    expect(found.map(({ line }) => line)).toEqual(MISTAKES.map((_, i) => firstLine + i))
    MISTAKES.forEach(({ mistake, says }, i) => {
      expect(found[i]!.message, mistake).toContain(says)
    })
  })

  it('writes unknown nowhere in the generated types but in the index signature openapi-typescript gives the headers of every response', () => {
    const api = program.getSourceFile(join(dir, 'api.d.ts'))!
    const unknowns = typeKeywordsIn(api, [ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.AnyKeyword])
    expect(unknowns.filter((where) => where.endsWith('.headers')).length).toBeGreaterThan(0)
    expect(unknowns.filter((where) => !where.endsWith('.headers'))).toEqual([])
  })

  it('types every resource, list and error envelope without unknown, as the compiler sees them', () => {
    const checker = program.getTypeChecker()
    const client = program.getSourceFile(join(dir, 'client.mts'))!
    const resources = checker
      .getExportsOfModule(checker.getSymbolAtLocation(client)!)
      .find(({ name }) => name === 'Resources')!
    const names = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(resources))
    expect(names.map(({ name }) => name)).toHaveLength(11)
    for (const resource of names) {
      expect(unknownsIn(checker, checker.getTypeOfSymbol(resource), resource.name), resource.name).toEqual([])
    }
  })

  it('types an id as string, a nullable timestamp as string | null, an enum as its values', () => {
    const checker = program.getTypeChecker()
    const client = program.getSourceFile(join(dir, 'client.mts'))!
    const resources = checker
      .getExportsOfModule(checker.getSymbolAtLocation(client)!)
      .find(({ name }) => name === 'Resources')!
    const call = checker.getTypeOfSymbol(checker.getPropertyOfType(checker.getDeclaredTypeOfSymbol(resources), 'Call')!)
    const typeOf = (field: string) =>
      checker.typeToString(checker.getTypeOfSymbol(checker.getPropertyOfType(call, field)!))
    expect(typeOf('id')).toBe('string')
    expect(typeOf('ended_at')).toBe('string | null')
    expect(typeOf('status')).toBe('"completed" | "failed" | "blocked" | "in-progress" | "forwarding"')
    expect(typeOf('transfer_status').split(' | ').sort()).toEqual(['"completed"', '"failed"', '"initiated"', 'null'])
  })

  it('walks a journey against the standalone server: /v1/me, three pages of completed calls, a call with its messages, a 201, a 409, a 403', async () => {
    expect(diagnosticsOf('client.mts')).toEqual([])
    program.emit(program.getSourceFile(join(dir, 'client.mts')))
    const { journey } = (await import(pathToFileURL(join(dir, 'client.mjs')).href)) as {
      journey: (baseUrl: string) => Promise<any>
    }
    const result = await journey(server.url)

    expect(result.organization).toMatchObject({
      organization_name: 'Harbor Dental Care',
      scopes: expect.arrayContaining(['contacts:write']),
    })

    const calls = result.pages.flat()
    expect(result.pages.map((page: unknown[]) => page.length)).toEqual([5, 5, 5])
    expect(new Set(calls.map(({ id }: { id: string }) => id)).size).toBe(15)
    for (const call of calls) expect(call.status).toBe('completed')
    const times = calls.map(({ created_at }: { created_at: string }) => created_at)
    expect(times).toEqual([...times].sort().reverse())

    expect(result.call.id).toBe(calls[0].id)
    expect(result.call.said).toBe(result.call.transcript)
    expect(result.call.ended_at).not.toBeNull()

    expect(result.created.status).toBe(201)
    expect(result.created.contact).toMatchObject({
      phone: '+14155550188',
      source: 'api',
      total_calls: 0,
      last_call_at: null,
    })
    expect(result.created.location).toBe(`/v1/contacts/${result.created.contact.id}`)

    expect(result.again).toEqual({ status: 409, code: 'contact_exists', takenBy: result.created.contact.id })
    expect(result.leads).toEqual({
      status: 403,
      code: 'insufficient_scope',
      details: { required_scope: 'leads:read', key_scopes: ['calls:read'] },
    })
  })
})

/**
 * Where a type holds `unknown` (or `any`), looking through its properties, unions, intersections and array elements.
 */
function unknownsIn(checker: ts.TypeChecker, type: ts.Type, where: string, seen = new Set<ts.Type>()): string[] {
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return [where]
  if (seen.has(type)) return []
  seen.add(type)
  if (type.isUnionOrIntersection()) return type.types.flatMap((member) => unknownsIn(checker, member, where, seen))
  if (checker.isArrayType(type))
    return unknownsIn(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!, `${where}[]`, seen)
  if (!(type.flags & ts.TypeFlags.Object)) return []
  const index = checker
    .getIndexInfosOfType(type)
    .flatMap((info) => unknownsIn(checker, info.type, `${where}[key]`, seen))
  return [
    ...index,
    ...checker
      .getPropertiesOfType(type)
      .flatMap((property) => unknownsIn(checker, checker.getTypeOfSymbol(property), `${where}.${property.name}`, seen)),
  ]
}

/**
 * Where the generated source writes one of these keywords, as the names of the declarations around it
 * (`components.schemas.Call.id`).
 */
function typeKeywordsIn(source: ts.SourceFile, kinds: ts.SyntaxKind[]): string[] {
  const found: string[] = []
  const visit = (node: ts.Node, where: string[]) => {
    if (kinds.includes(node.kind)) found.push(where.join('.'))
    const named = (ts.isPropertySignature(node) || ts.isInterfaceDeclaration(node)) && node.name.getText(source)
    ts.forEachChild(node, (child) => visit(child, named ? [...where, named] : where))
  }
  visit(source, [])
  return found
}
