// Writes docs/reference/{endpoints,resources,errors,cli}.md from the built package itself: the OpenAPI
// document (every endpoint, its parameters and responses, every resource's fields), the error codes, and the
// command's --help. `npm run docs` writes them; test/docs.test.ts fails when what is committed differs, so
// the reference cannot drift from the code. Run `npm run build` first.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { ApiError, createSandbox, ErrorCode, openApiDocument } from '../dist/esm/index.js'

/** When each error code comes: every code of the package must have a line (the script stops otherwise). */
const WHEN = {
  invalid_parameter:
    'A path or query parameter is malformed or out of range (`param` names it), or repeated, or the query has more than 100 parameters, or a header is (`Prefer`; `Host`: none on HTTP/1.1, two, or not a plain `host[:port]`), or the request target has user information.',
  unknown_parameter: 'A query parameter the endpoint does not take; `details.did_you_mean` names the nearest one.',
  invalid_cursor: 'A cursor that is damaged, of another endpoint, key or filters, or of another world.',
  invalid_json: 'A body that is not JSON, or not a JSON object.',
  unauthorized:
    'No `Authorization: Bearer <key>`, a malformed one, an unknown key; on the control plane, no admin token.',
  insufficient_scope: 'The key lacks the scope the endpoint needs; `details.required_scope` and `details.key_scopes`.',
  client_not_allowed:
    'Standalone server without an admin token: a control-plane request from another machine (a peer address that is not loopback). Nothing was done; give the server an admin token to serve other machines.',
  host_not_allowed:
    'Standalone server without an admin token: a control-plane request whose `Host` is not a loopback name or address, nor an `--allowed-hosts` name, as DNS rebinding sends. Nothing was done.',
  origin_not_allowed:
    'Standalone server without an admin token: a control-plane request from a page of another origin (`Origin`, `Sec-Fetch-Site: cross-site` or `same-site`) not in `--allowed-origins`. Nothing was done.',
  not_found: 'No endpoint at the path (`details.did_you_mean`: the nearest one), or no record with the id.',
  method_not_allowed: 'The path takes other methods; `Allow` lists them.',
  contact_exists: 'A contact of the organization has the phone; `details.contact_id` names it.',
  payload_too_large: 'A body over 64 KiB (over 1 MiB it is not read, and the connection closes).',
  request_timeout:
    'The server: a request whose headers and body did not all arrive within `--request-timeout` of its start (30 s); the connection closes.',
  expectation_failed: 'An `Expect` header other than `100-continue`.',
  unsupported_media_type: 'A body not sent as `Content-Type: application/json`.',
  validation_failed:
    'Body fields are wrong; `details` lists the first 20 bad fields, each with a code (`required`, `invalid_type`, `invalid_format`, `invalid_choice`, `too_long`, `unknown_field`), and the message counts the rest.',
  rate_limited:
    'Over `--rate-limit`, or a fault rule (`POST /_sandbox/faults`, with the rate-limit headers); `Retry-After` says when to retry.',
  internal_error: 'Asked for (`Prefer: code=500`, a fault rule, `--error-rate`), or a failure of the sandbox itself.',
  service_unavailable:
    'Asked for (`Prefer: code=503`, a fault rule, `--error-rate`), or not ready (`/_sandbox/ready`).',
  storage_unavailable:
    'The store did not take a write (a full disk, Redis out of reach, a Redis Cluster failing over; nothing was kept), or fewer replicas than `--store-replicas` took one within 1 s (Redis may keep it), or a shared store cannot be read, or Redis did not answer within `--store-timeout` (2 s; a write may still be kept, once: read before sending it again). `Retry-After: 1`.',
  session_exists: 'A session of that name exists already; `details.session` names it.',
  session_limit_reached:
    'A new session name when the server keeps as many sessions as `--session-limit` allows; `details.session` names it. `Retry-After`: when the least recently used session expires (`--session-ttl`).',
  fault_rule_limit_reached:
    "A new fault rule when the world holds 100 already, or the server's sessions 10,000 together (`POST /_sandbox/faults`); `details.limit` is that number. Remove one, or all (`DELETE /_sandbox/faults`), or end sessions no test uses.",
  upstream_unreachable: 'Proxy mode: the real service could not be reached.',
  upstream_timeout: 'Proxy mode: the real service took longer than `--proxy-timeout`.',
  upstream_not_json: 'Proxy mode: the real service responded with something that is not JSON.',
  upstream_unsafe_url:
    'Proxy mode: the real service responded with a URL that is not http: or https: (`javascript:`, `data:`); the message names the fields, `GET /_sandbox/drift` shows them.',
}

/** How the sandbox fills each field of each resource: every field must have a line (the script stops otherwise). */
const CALL = {
  id: 'A UUID drawn from the seed (or from the write that made it).',
  caller_phone: 'The caller, E.164; a caller who rings again keeps the number (and the contact).',
  caller_name: "The caller's name as the assistant heard it.",
  status:
    '`completed` mostly; `in-progress` and `forwarding` while live (they end when the clock reaches their end); `failed`, `blocked` now and then.',
  duration_seconds: 'The length of the conversation; a live call counts up with the clock.',
  summary: "One sentence about the call, from the business type's script.",
  transcript: 'The whole conversation, one `Role: text` line per message (a live call: what was said so far).',
  recording_url:
    '`https://recordings.call-sandbox.example/<organization>/<call>.mp3`: a URL of its own, which serves nothing.',
  transfer_status: 'Set when the assistant handed the call to staff; null otherwise.',
  started_at: 'When the call started (the seed spreads calls over the weeks before `now`).',
  ended_at: 'When it ended; null while live.',
  assistant_id: "The organization's assistant.",
  contact_id: "The caller's contact, made by the first call of a number.",
  created_at: "When the record was made: the call's start.",
}
const FILLED_BY = {
  Call: CALL,
  CallWithMessages: {
    ...CALL,
    messages: 'The transcript as messages: `role` (assistant or caller), `content`, and when it was said.',
  },
  Meta: {
    request_id: '`req_` and 24 random characters; also in `X-Request-Id`.',
    timestamp: 'The sandbox clock when the response was made (a stopped clock: the same every time).',
  },
  Contact: {
    id: 'A UUID.',
    phone: 'E.164, unique within the organization (a second one is 409 `contact_exists`).',
    name: "The caller's name, or what `POST /v1/contacts` gave; null when unknown.",
    email: 'Every seeded contact has one; `POST /v1/contacts` may give none (null).',
    company: 'For some callers (about one in ten), or what `POST` gave; null otherwise.',
    source: '`inbound_call` for a contact a call made, `api` for one the API made (some seeded ones too).',
    total_calls: 'Calls from the number; 0 for a contact made by `POST`.',
    last_call_at: 'The start of the newest call from the number; null for none.',
    notes: "A note from the caller's calls in the seed, or what `POST` gave; null when none.",
    created_at: 'When the contact was made.',
    updated_at: 'When it last changed: a new call, an email learned.',
  },
  Lead: {
    id: 'A UUID.',
    caller_phone: 'The caller of the call that made the lead.',
    caller_name: "The caller's name.",
    caller_email: 'The email the caller gave, or null.',
    status: 'Spread over `new`, `contacted`, `qualified`, `converted`, `lost`: older leads have moved on.',
    urgency: "`low`, `medium` or `high`, from the call's reason (an emergency is high).",
    interest: 'What the caller wants, in their words.',
    qualification_reason: 'Why the assistant thought it a lead.',
    call_summary: "The call's summary.",
    call_log_id: 'The call that made it.',
    contact_id: "The caller's contact.",
    created_at: 'When the call that made it ended.',
    updated_at: 'When it last changed.',
  },
  Appointment: {
    id: 'A UUID.',
    caller_phone: 'The caller of the call that booked it.',
    caller_name: "The caller's name.",
    appointment_date: 'The day booked, after the call that booked it (past ones are mostly completed).',
    appointment_time_start: 'The start, within business hours.',
    appointment_time_end: "The end: the start plus the service's length.",
    service_type: "A service of the organization's business type.",
    status: '`booked` or `confirmed` ahead; `completed`, `no_show` or `cancelled` once past.',
    calendar_event_link:
      '`https://calendar.call-sandbox.example/events/<id>`: a link of its own, which serves nothing.',
    call_log_id: 'The call that booked it.',
    contact_id: "The caller's contact.",
    created_at: 'When the call that booked it ended.',
    updated_at: 'When it last changed.',
  },
  Organization: {
    organization_id: 'From `fixtures/organizations.json` (or `--organizations`).',
    organization_name: 'From the fixtures.',
    plan: 'From the fixtures.',
    scopes: 'The scopes of the key that asked (`GET /v1/me`).',
  },
}

const sandbox = createSandbox({ now: '2026-11-20T12:00:00Z' })
await sandbox.ready
const document = openApiDocument(sandbox)
const generated = '<!-- Generated by scripts/reference.mjs from the built package: run `npm run docs`, do not edit. -->'

function typeOf(schema) {
  if (!schema) return ''
  if (schema.$ref)
    return `[${schema.$ref.split('/').pop()}](resources.md#${schema.$ref.split('/').pop().toLowerCase()})`
  if (schema.enum) return schema.enum.map((value) => (value === null ? 'null' : `\`${value}\``)).join(', ')
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ')
  const types = [schema.type].flat().filter(Boolean)
  let text = types.join(' or ')
  if (schema.format) text += ` (${schema.format})`
  if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')))
    text = `list of ${typeOf(schema.items)}`
  if (schema.minimum !== undefined && schema.maximum !== undefined && schema.maximum < 1e15)
    text += ` ${schema.minimum} to ${schema.maximum}`
  if (schema.pattern) text += ` matching \`${schema.pattern}\``
  return text
}

const cell = (text) =>
  String(text ?? '')
    .replaceAll('|', '\\|')
    .replaceAll('\n', ' ')

function endpoints() {
  const out = [generated, '', '# Endpoints', '']
  out.push(
    "Every endpoint of a root (the bare root, or a session's `/sessions/{name}`), as `/openapi.json` describes it. The API wants `Authorization: Bearer <key>` with the scope named; the control plane wants the admin token when the server has one (`--admin-token`). The server adds `/_sandbox/metrics` and `/_sandbox/console/` (see the guides).",
    '',
    '## Forced statuses',
    '',
    // The API operations' `4XX`, described once rather than as a 409 under every GET.
    `${document.components.responses.Forced.description} What each status says: [errors](errors.md).`,
    '',
  )
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      out.push(`## ${method.toUpperCase()} ${path}`, '')
      out.push(operation.summary + (operation.description ? `: ${operation.description}` : '.'), '')
      const scopes = operation.security?.flatMap((requirement) => Object.entries(requirement)) ?? []
      const needs =
        scopes.length === 0
          ? 'nothing'
          : scopes
              .map(([scheme, list]) =>
                scheme === 'bearerAuth'
                  ? `an API key${list.length ? ` with ${list.join(', ')}` : ''}`
                  : 'the admin token',
              )
              .join(' or ')
      out.push(`Requires: ${needs}.`, '')
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'header')
      if (parameters.length > 0) {
        out.push('| parameter | in | required | value |', '| --- | --- | --- | --- |')
        for (const parameter of parameters) {
          out.push(
            `| \`${parameter.name}\` | ${parameter.in} | ${parameter.required ? 'yes' : 'no'} | ${cell(parameter.description ?? typeOf(parameter.schema))} |`,
          )
        }
        out.push('')
      }
      if (operation.requestBody) {
        const schema = operation.requestBody.content['application/json'].schema
        out.push(
          `Body (JSON${operation.requestBody.required ? '' : ', optional'}): ${Object.entries(schema.properties ?? {})
            .map(([name, field]) => `\`${name}\` ${cell(typeOf(field))}`)
            .join('; ')}.`,
          '',
        )
      }
      // A class (`4XX`) stands for the statuses only `Prefer: code=` brings: said once, above.
      const statuses = Object.keys(operation.responses).filter((status) => !status.endsWith('XX'))
      const forced =
        statuses.length < Object.keys(operation.responses).length
          ? ', and [what `Prefer: code=` forces](#forced-statuses)'
          : ''
      out.push(`Responses: ${statuses.join(', ')}${forced}.`, '')
    }
  }
  return out.join('\n')
}

function resources() {
  const out = [generated, '', '# Resources', '']
  out.push(
    'The fields of every resource the API returns, their types, and how the sandbox fills them. A field that may be null says `null` among its types.',
    '',
  )
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    // The error envelope is the errors page's.
    if (!schema.properties || name === 'ErrorEnvelope') continue
    out.push(`## ${name}`, '')
    if (schema.description) out.push(schema.description, '')
    out.push('| field | type | how the sandbox fills it |', '| --- | --- | --- |')
    for (const [field, property] of Object.entries(schema.properties)) {
      const filled = FILLED_BY[name]?.[field]
      if (!filled) throw new Error(`scripts/reference.mjs: say how the sandbox fills ${name}.${field} (FILLED_BY).`)
      out.push(`| \`${field}\` | ${cell(typeOf(property))} | ${cell(filled)} |`)
    }
    out.push('')
  }
  return out.join('\n')
}

function errors() {
  const out = [generated, '', '# Errors', '']
  out.push(
    'Every error is `{ error: { type, code, message, param?, details? }, meta }` with its status; `meta.request_id` is also in `X-Request-Id`.',
    '',
  )
  out.push('| code | status | type | when |', '| --- | --- | --- | --- |')
  for (const code of ErrorCode.options) {
    if (!WHEN[code]) throw new Error(`scripts/reference.mjs: say when ${code} comes (WHEN).`)
    const error = new ApiError(code, '')
    out.push(`| \`${code}\` | ${error.status} | \`${error.type}\` | ${cell(WHEN[code])} |`)
  }
  return out.join('\n')
}

function cli() {
  const help = (...args) => execFileSync(process.execPath, ['dist/bin/call-sandbox.js', ...args], { encoding: 'utf8' })
  return [
    generated,
    '',
    '# The command line: `call-sandbox`',
    '',
    '```text',
    help('--help').trimEnd(),
    '```',
    '',
    '## `call-sandbox mcp`',
    '',
    '```text',
    help('mcp', '--help').trimEnd(),
    '```',
    '',
  ].join('\n')
}

const files = { endpoints: endpoints(), resources: resources(), errors: errors(), cli: cli() }
if (process.argv.includes('--print')) {
  process.stdout.write(JSON.stringify(files))
} else {
  for (const [name, text] of Object.entries(files)) writeFileSync(`docs/reference/${name}.md`, `${text.trimEnd()}\n`)
}
sandbox.stop()
