import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { openApiDocument } from '../../src/openapi/openApiDocument.js'
import type { Sandbox } from '../../src/sandbox/Sandbox.js'

/*
 * Holds every answer a test receives to the OpenAPI document the sandbox
 * serves: the operation by method and path template, the response by status,
 * the body by its JSON Schema (ajv, draft 2020-12, with formats). Answers to
 * paths or methods the document does not have must be errors in the error
 * envelope of `components.responses`.
 */

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020

/** One request and the answer to it, as the test got them. */
export interface Exchange {
  method: string
  /** The request URL, absolute; its path is matched as the sandbox matches it (still percent-encoded). */
  url: string
  status: number
  headers: Headers
  /** The body as text. */
  text: string
}

/** An answer the document does not allow; fails the test that made the request. */
export class DocumentViolation extends Error {
  override name = 'DocumentViolation'
}

type Json = Record<string, any>

interface Operation {
  method: string
  /** Like `/v1/calls/{call_id}`. */
  template: string
  segments: string[]
  responses: Json
}

/** Where the document's named schemas are registered in ajv. */
const COMPONENTS_ID = 'https://call-sandbox.test/openapi.json/components'
const FETCH_NORMALIZED = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The schemas of one OpenAPI 3.1 document, compiled as they are needed. */
export class DocumentValidator {
  private readonly ajv: Ajv2020
  private readonly operations: Operation[]
  private readonly compiled = new Map<string, ValidateFunction>()

  constructor(private readonly document: Json) {
    this.ajv = addFormats(new Ajv2020({ strict: true, strictTypes: false, allErrors: true }))
    // The document's `#/components/schemas/X` live at COMPONENTS_ID#/$defs/X.
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: rewriteRefs(document.components?.schemas ?? {}, '#/$defs/') })
    this.operations = Object.entries(document.paths as Json).flatMap(([template, item]) =>
      Object.entries(item as Json)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          segments: template.split('/'),
          responses: (operation as Json).responses,
        })),
    )
  }

  /**
   * A path below the document's server that has a variable (a session's root, `/sessions/{session}`), when it is under
   * one.
   */
  pathBelowServer(path: string): string {
    for (const { url } of (this.document.servers ?? []) as Array<{ url: string }>) {
      if (!url.includes('{')) continue
      const template = new URL(url, 'http://server.test').pathname.replaceAll('%7B', '{').replaceAll('%7D', '}')
      const prefix = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}(?=/)`)
      if (prefix.test(path)) return path.replace(prefix, '')
    }
    return path
  }

  /**
   * What is wrong with an answer, as readable lines; empty when the document
   * allows it.
   *
   * @example
   * validator.violations({ method: 'GET', url: 'https://api.call-sandbox.test/v1/me', status: 200, contentType:
   * 'application/json', text })
   */
  violations({ method: sent, url, status, headers, text }: Exchange): string[] {
    // fetch upper-cases these methods, and only these, as the Fetch standard says.
    const method = FETCH_NORMALIZED.includes(sent.toUpperCase()) ? sent.toUpperCase() : sent
    const path = this.pathBelowServer(new URL(url).pathname)
    const candidates = this.operations.filter((operation) => matches(operation.segments, path.split('/')))
    const operation = candidates.find((candidate) => candidate.method === method)
    let where: string
    let response: Json | undefined
    if (operation) {
      where = `paths["${operation.template}"].${method.toLowerCase()}.responses["${status}"]`
      response = this.resolve(
        operation.responses[status] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default,
      )
      if (!response)
        return [
          `the document lists no ${status} answer for ${method} ${operation.template} (it lists ${Object.keys(operation.responses).join(', ')})`,
        ]
    } else {
      // A path or a method the document does not have: it can only be an error, in the documented envelope.
      where = `components.responses["Error${status}"] (${candidates.length > 0 ? `no ${method} operation at ${candidates[0]!.template}` : 'a path the document does not have'})`
      if (status < 400)
        return [`answered ${status} to a ${candidates.length > 0 ? 'method' : 'path'} the document does not have`]
      response = this.resolve(this.document.components?.responses?.[`Error${status}`])
      if (!response) return [`answered ${status}, which is not an error status of components.responses`]
    }
    const problems = this.headerViolations(where, response, headers)
    // A HEAD answer has no body to hold to anything.
    if (method === 'HEAD' || !response.content) return problems
    return [...problems, ...this.bodyViolations(where, response, headers.get('content-type'), text)]
  }

  /**
   * What is wrong with a value against a schema of the document (inline, or
   * a `$ref` to `components.schemas`), as readable lines; empty when it fits.
   *
   * @example
   * validator.valueViolations({ $ref: '#/components/schemas/Call' }, call) // []
   */
  valueViolations(schema: Json, value: unknown): string[] {
    const validate = this.validatorOf(`value ${JSON.stringify(schema)}`, schema)
    return validate(value) ? [] : (validate.errors ?? []).map((error) => describeError(error, value))
  }

  /** Every header the response marks `required` is there, and each documented one that is there matches its schema. */
  private headerViolations(where: string, response: Json, headers: Headers): string[] {
    return Object.entries((response.headers ?? {}) as Json).flatMap(([name, header]) => {
      const { required, schema } = this.resolve(header as Json) ?? {}
      const value = headers.get(name)
      if (value === null) return required ? [`the header ${name} is missing; ${where} requires it`] : []
      if (!schema) return []
      // A header is text; an integer header is its digits.
      const typed = (schema as Json).type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value
      const validate = this.validatorOf(`${where}.headers["${name}"].schema`, schema as Json)
      return validate(typed)
        ? []
        : (validate.errors ?? []).map((error) => `the header ${name}: ${JSON.stringify(value)} ${error.message}`)
    })
  }

  private bodyViolations(where: string, response: Json, contentType: string | null, text: string): string[] {
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
    const media = response.content[mediaType] as Json | undefined
    if (!media) return [`Content-Type is ${contentType}; ${where} has ${Object.keys(response.content).join(', ')}`]
    if (!media.schema) return []
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return [`the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`]
    }
    const validate = this.validatorOf(`${where}.content["${mediaType}"].schema`, media.schema)
    if (validate(body)) return []
    return (validate.errors ?? []).map((error) => describeError(error, body))
  }

  /** A response object, its `$ref` followed. */
  private resolve(response: Json | undefined): Json | undefined {
    let resolved = response
    for (let hops = 0; resolved?.$ref !== undefined && hops < 10; hops++) {
      resolved = (resolved.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json | undefined>(
          (node, part) => node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')],
          this.document,
        )
    }
    return resolved
  }

  private validatorOf(key: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema, `${COMPONENTS_ID}#/$defs/`))
      this.compiled.set(key, validate)
    }
    return validate
  }
}

/** A path template's segments against a request path's: `{name}` takes any segment but the empty one. */
function matches(template: string[], segments: string[]): boolean {
  return (
    template.length === segments.length &&
    template.every((part, i) => (/^\{\w+\}$/.test(part) ? segments[i] !== '' : part === segments[i]))
  )
}

/** The schema with `#/components/schemas/X` refs pointing at `<prefix>X`. */
function rewriteRefs<T>(schema: T, prefix: string): T {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/components/schemas/', `"$ref":"${prefix}`)) as T
}

/** `/data/0/email must match format "email" (is "nope")`. */
function describeError(error: ErrorObject, body: unknown): string {
  const value = error.instancePath
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, part) => (node as Json | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')],
      body,
    )
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
      : ''
  const shown = value === undefined ? '' : ` (is ${clip(JSON.stringify(value), 120)})`
  return `${error.instancePath || '(the body)'} ${error.message}${extra}${shown}`
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** One validator per distinct document: the sandboxes of a test run mostly serve the same. */
const byDocument = new Map<string, DocumentValidator>()
const bySandbox = new WeakMap<Sandbox, DocumentValidator>()

/**
 * The validator of the document a sandbox serves at `/openapi.json`.
 *
 * @example
 * documentValidatorOf(api.sandbox).violations(exchange) // []
 */
export function documentValidatorOf(sandbox: Sandbox): DocumentValidator {
  let validator = bySandbox.get(sandbox)
  if (!validator) {
    const document = openApiDocument(sandbox) as Json
    const key = JSON.stringify({ paths: document.paths, components: document.components })
    validator = byDocument.get(key) ?? new DocumentValidator(document)
    byDocument.set(key, validator)
    bySandbox.set(sandbox, validator)
  }
  return validator
}

/**
 * Throws a `DocumentViolation` naming the request, the answer and every
 * problem when the document does not allow the answer.
 *
 * @example
 * assertAllowedByDocument(documentValidatorOf(sandbox), exchange)
 */
export function assertAllowedByDocument(validator: DocumentValidator, exchange: Exchange): void {
  const problems = validator.violations(exchange)
  if (problems.length === 0) return
  const { pathname, search } = new URL(exchange.url)
  throw new DocumentViolation(
    [
      `${exchange.method} ${clip(pathname + search, 300)} answered ${exchange.status}, which the OpenAPI document (/openapi.json) does not allow:`,
      ...problems.slice(0, 20).map((problem) => `  - ${problem}`),
      ...(problems.length > 20 ? [`  … and ${problems.length - 20} more`] : []),
      `  body: ${clip(exchange.text, 600)}`,
    ].join('\n'),
  )
}
