// The call-sandbox console: plain DOM, no framework, no build step, nothing fetched from anywhere but the
// sandbox it is served by. It reads and steers the root it is served under: the bare root, or a session's
// (`/sessions/{name}/_sandbox/console/`).

const root = location.pathname.replace(/\/_sandbox\/console\/?.*$/, '')
const session = root === '' ? 'default' : decodeURIComponent(root.slice(root.lastIndexOf('/') + 1))
const TOKEN_KEY = 'call-sandbox-admin-token'

/** @typedef {import('../src/schemas/index.js').JournalEntry} JournalEntry */
/** @typedef {import('../src/schemas/index.js').ErrorEnvelope['error']} ApiError */
/** @typedef {import('../src/schemas/index.js').FieldError} FieldError */
/** @typedef {'calls' | 'contacts' | 'leads' | 'appointments'} RecordKind */
/** @typedef {import('../src/schemas/index.js').Choices} Choices */
/**
 * A refusal's `details`: what a 403 lacks, the nearest name to an unknown one, or a 422's bad fields.
 * @typedef {{ required_scope?: string, key_scopes: string[], did_you_mean?: string } & FieldError[]} RefusalDetails
 */
/**
 * A JSON answer of the sandbox: `data` (and a list's `count`, `has_more`, `next_cursor`) when it succeeded, `error`
 * when not; the code reads the one its status says.
 * @template T
 * @typedef {{ status: number, body: { data: T, error: ApiError, count: number, has_more: boolean, next_cursor: string | null } }} Answer
 */

/**
 * The page's element `selector` finds: the page has every one the script asks for.
 * @param {string} selector
 * @returns {HTMLElement}
 */
const $ = (selector) => /** @type {HTMLElement} */ (document.querySelector(selector))

$('#where').textContent = root === '' ? '(the default session)' : `(session ${session})`

/**
 * Builds an element: `el('td', { class: 's4' }, 'text', child)`.
 * @param {string} tag
 * @param {Record<string, unknown>} [attributes] `on…`: a listener; `true`: there, empty; `false` or undefined: left out
 * @param {...(Node | string | undefined | null)} children
 * @returns {HTMLElement}
 */
function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (name.startsWith('on')) element.addEventListener(name.slice(2), /** @type {EventListener} */ (value))
    else if (value !== undefined && value !== false) element.setAttribute(name, value === true ? '' : String(value))
  }
  element.append(...children.filter((child) => child !== undefined && child !== null))
  return element
}

/**
 * A link to `url` only when it leads to a web page (http: or https:, as the browser reads it); any other value
 * (`javascript:`, `data:`) is shown as text, never made a link that could run in this page, where the token is kept.
 * @param {string} url
 * @param {string} text
 */
function link(url, text) {
  /** @type {URL | undefined} */
  let target
  try {
    target = new URL(url, location.href)
  } catch {}
  if (target?.protocol === 'http:' || target?.protocol === 'https:') return el('a', { href: target.href }, text)
  return el('span', { class: 'not-a-link' }, `${text} (not an http(s) URL, so not a link): ${url}`)
}

/**
 * The control plane, with the admin token when the sandbox wants one (asked once, kept for the tab).
 * @param {string} path
 * @param {RequestInit} [init]
 * @returns {Promise<Answer<unknown>>}
 */
async function control(path, init = {}) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = sessionStorage.getItem(TOKEN_KEY)
    /** @type {Record<string, string>} */
    const headers = { ...(init.body ? { 'Content-Type': 'application/json' } : {}) }
    if (token) headers.Authorization = `Bearer ${token}`
    const response = await fetch(root + path, { ...init, headers })
    if (response.status !== 401) return { status: response.status, body: await response.json() }
    await askToken()
  }
  throw new Error('The admin token was refused.')
}

/** @type {Promise<void> | undefined} */
let asking
function askToken() {
  asking ??= new Promise((resolve) => {
    const dialog = /** @type {HTMLDialogElement} */ ($('#token-dialog'))
    dialog.addEventListener(
      'close',
      () => {
        sessionStorage.setItem(TOKEN_KEY, /** @type {HTMLInputElement} */ (dialog.querySelector('input')).value)
        asking = undefined
        resolve()
      },
      { once: true },
    )
    dialog.showModal()
  })
  return asking
}

/**
 * The API, with a key.
 * @param {string} path
 * @param {string} key
 * @returns {Promise<Answer<unknown>>}
 */
async function api(path, key) {
  const response = await fetch(root + path, { headers: { Authorization: `Bearer ${key}` } })
  return { status: response.status, body: await response.json() }
}

/**
 * What the forms offer (kinds and their columns, call statuses, reasons, scenarios), from the sandbox itself
 * (`GET /_sandbox/choices`), so that the console never offers a value the sandbox refuses.
 */
/** @type {Choices} */
let choices = { kinds: [], call_statuses: [], scenarios: [], organizations: [] }
async function loadChoices() {
  const { status, body } = /** @type {Answer<Choices>} */ (await control('/_sandbox/choices'))
  if (status !== 200) {
    $('#control-result').replaceChildren(reasonOf(body.error))
    return
  }
  choices = body.data
  /** @param {string} name @param {readonly string[]} values */
  const fill = (name, values) => $(`[data-choices="${name}"]`).append(...values.map((value) => el('option', {}, value)))
  fill(
    'kinds',
    choices.kinds.map(({ kind }) => kind),
  )
  fill('scenarios', choices.scenarios)
  fill('call_statuses', choices.call_statuses)
  // A simulated call without organization_id rings the first organization: its reasons are the ones to suggest.
  const reasons = choices.organizations[0]?.reasons ?? []
  $('#reasons').replaceChildren(...reasons.map((reason) => el('option', { value: reason })))
}

// Tabs: the keyboard moves between them (arrows), the hash remembers the one open.
const tabs = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('[role=tab]')])
/** The id of the panel a tab opens: every tab names one. @param {HTMLElement} tab */
const panelOf = (tab) => /** @type {string} */ (tab.getAttribute('aria-controls'))
/** @param {string} id */
function openTab(id) {
  for (const tab of tabs) {
    const selected = panelOf(tab) === id
    tab.setAttribute('aria-selected', String(selected))
    tab.tabIndex = selected ? 0 : -1
    $(`#${panelOf(tab)}`).hidden = !selected
  }
  history.replaceState(null, '', `#${id}`)
  refresh[id]?.()
}
for (const [index, tab] of tabs.entries()) {
  tab.addEventListener('click', () => openTab(panelOf(tab)))
  tab.addEventListener('keydown', (event) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0
    if (!step) return
    const next = /** @type {HTMLElement} */ (tabs[(index + step + tabs.length) % tabs.length])
    next.focus()
    openTab(panelOf(next))
  })
}

// Requests, live: the journal polled twice a second; a row opens to the whole exchange.
/** @type {string | undefined} */
let selectedRequest
let shownIds = ''
async function refreshRequests() {
  const filters = new FormData(/** @type {HTMLFormElement} */ ($('#filters')))
  const query = new URLSearchParams({ limit: '200' })
  for (const [name, value] of filters) if (value) query.set(name, /** @type {string} */ (value))
  const { status, body } = /** @type {Answer<JournalEntry[]>} */ (await control(`/_sandbox/requests?${query}`))
  if (status !== 200) return
  $('#count').textContent = `${body.count} matching`
  drawChart(body.data)
  const ids = body.data.map((entry) => entry.request_id).join()
  if (ids === shownIds) return
  shownIds = ids
  $('#request-list tbody').replaceChildren(
    ...body.data.map((entry) =>
      el(
        'tr',
        {
          tabindex: 0,
          'data-request-id': entry.request_id,
          'aria-selected': String(entry.request_id === selectedRequest),
          onclick: () => showRequest(entry),
          onkeydown: (/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && showRequest(entry),
        },
        el('td', {}, entry.timestamp.slice(11, 19)),
        el('td', {}, entry.method),
        el('td', {}, entry.path + queryText(entry.query)),
        el('td', { class: `s${String(entry.status)[0]}` }, String(entry.status)),
        el('td', {}, entry.key ?? '(none)'),
        el('td', {}, String(entry.duration_ms)),
      ),
    ),
  )
}

/** @param {JournalEntry['query']} query */
function queryText(query) {
  const pairs = Object.entries(query).flatMap(([name, value]) => [value].flat().map((one) => `${name}=${one}`))
  return pairs.length > 0 ? `?${pairs.join('&')}` : ''
}

/** @param {JournalEntry} entry */
function showRequest(entry) {
  selectedRequest = entry.request_id
  for (const row of /** @type {NodeListOf<HTMLElement>} */ (
    document.querySelectorAll('#request-list tr[data-request-id]')
  )) {
    row.setAttribute('aria-selected', String(row.dataset.requestId === entry.request_id))
  }
  const answer = parse(entry.response?.body)
  const error = answer?.error
  $('#request-detail').replaceChildren(
    el('h2', {}, `${entry.method} ${entry.path}${queryText(entry.query)}`),
    el('p', {}, `${entry.status} in ${entry.duration_ms} ms, ${entry.timestamp}, key ${entry.key ?? '(none)'}`),
    // replaceChildren would show an undefined as the word "undefined": a part that is not there is left out.
    ...(error ? [reasonOf(error)] : []),
    el('h3', {}, 'Request'),
    headersOf(entry.request?.headers),
    bodyOf(entry.request),
    el('h3', {}, 'Answer'),
    headersOf(entry.response?.headers),
    bodyOf(entry.response),
  )
}

/**
 * Which check refused the request, and what to change.
 * @param {ApiError} error
 */
function reasonOf(error) {
  const details = /** @type {RefusalDetails} */ (error.details ?? {})
  const hints = []
  if (error.param) hints.push(`The parameter: ${error.param}.`)
  if (details.required_scope)
    hints.push(`Missing scope: ${details.required_scope} (the key has ${details.key_scopes.join(', ') || 'none'}).`)
  if (details.did_you_mean) hints.push(`Did you mean ${details.did_you_mean}?`)
  if (Array.isArray(details)) for (const field of details) hints.push(`${field.field}: ${field.message}`)
  return el(
    'div',
    { class: 'reason', 'data-reason': error.code },
    el('strong', {}, `${error.code}: `),
    error.message,
    ...hints.map((hint) => el('p', {}, hint)),
  )
}

/** @param {Record<string, string>} [headers] */
function headersOf(headers = {}) {
  return el(
    'pre',
    {},
    // The journal keeps several Set-Cookies in one value, one a line: each is shown as it came, with its name.
    Object.entries(headers)
      .flatMap(([name, value]) => value.split('\n').map((one) => `${name}: ${one}`))
      .join('\n') || '(none)',
  )
}

/** @param {JournalEntry['request']} message */
function bodyOf(message) {
  if (!message?.body) return el('p', {}, '(no body)')
  const parsed = parse(message.body)
  const text = parsed ? JSON.stringify(parsed, null, 2) : message.body
  return el(
    'pre',
    { class: 'body' },
    text + (message.body_truncated ? '\n… (cut: the journal keeps the start of a long body)' : ''),
  )
}

/**
 * @param {string | null | undefined} text
 * @returns {{ error?: ApiError } | undefined}
 */
function parse(text) {
  try {
    return text ? JSON.parse(text) : undefined
  } catch {
    return undefined
  }
}

/**
 * Requests per minute by status class over the last hour of the sandbox clock, as stacked bars.
 * @param {JournalEntry[]} entries
 */
function drawChart(entries) {
  const svg = $('#chart')
  const end = entries[0] ? Date.parse(entries[0].timestamp) : Date.now()
  // 3xx is counted but has no bar of its own (nor a share of the tallest).
  const minutes = Array.from({ length: 60 }, () => ({ 2: 0, 3: 0, 4: 0, 5: 0 }))
  for (const entry of entries) {
    const ago = Math.floor((end - Date.parse(entry.timestamp)) / 60_000)
    const kind = /** @type {2 | 3 | 4 | 5} */ (Math.min(5, Math.max(2, Math.floor(entry.status / 100))))
    if (ago >= 0 && ago < 60) /** @type {{ 2: number, 3: number, 4: number, 5: number }} */ (minutes[59 - ago])[kind]++
  }
  const most = Math.max(1, ...minutes.map((minute) => minute[2] + minute[4] + minute[5]))
  const colours = { 2: '#34a853', 4: '#f29900', 5: '#d93025' }
  const bars = []
  for (const [index, minute] of minutes.entries()) {
    let y = 80
    for (const kind of /** @type {const} */ ([2, 4, 5])) {
      const height = (minute[kind] / most) * 76
      if (height === 0) continue
      y -= height
      const bar = document.createElementNS('http://www.w3.org/2000/svg', 'rect')
      for (const [name, value] of Object.entries({ x: index * 10, y, width: 8, height, fill: colours[kind] })) {
        bar.setAttribute(name, String(value))
      }
      bars.push(bar)
    }
  }
  svg.replaceChildren(...bars)
}

$('#filters').addEventListener('input', () => {
  shownIds = ''
  refreshRequests()
})
$('#filters').addEventListener('submit', (event) => event.preventDefault())

// World: the API's own lists, with its cursors.
/** @type {string | null} */
let worldCursor = null
async function refreshWorld(append = false) {
  const form = new FormData(/** @type {HTMLFormElement} */ ($('#world-form')))
  const kind = /** @type {RecordKind} */ (form.get('kind'))
  const key = /** @type {string} */ (form.get('key'))
  const cursor = append && worldCursor ? `&cursor=${worldCursor}` : ''
  const { status, body } = /** @type {Answer<Array<{ id: string } & Record<string, unknown>>>} */ (
    await api(`/v1/${kind}?limit=20${cursor}`, key)
  )
  const list = $('#world-list')
  if (status !== 200) {
    $('#world-detail').replaceChildren(reasonOf(body.error))
    return
  }
  worldCursor = body.next_cursor
  $('#world-more').hidden = !body.has_more
  const { columns } = /** @type {Choices['kinds'][number]} */ (choices.kinds.find((choice) => choice.kind === kind))
  const thead = /** @type {HTMLElement} */ (list.querySelector('thead'))
  thead.replaceChildren(el('tr', {}, ...columns.map((column) => el('th', {}, column))))
  const rows = body.data.map((record) =>
    el(
      'tr',
      { tabindex: 0, 'data-id': record.id, onclick: () => showRecord(kind, record, key) },
      ...columns.map((column) => el('td', {}, String(record[column] ?? ''))),
    ),
  )
  const tbody = /** @type {HTMLElement} */ (list.querySelector('tbody'))
  if (append) tbody.append(...rows)
  else tbody.replaceChildren(...rows)
}

/**
 * @param {RecordKind} kind
 * @param {{ id: string }} record
 * @param {string} key
 */
async function showRecord(kind, record, key) {
  if (kind !== 'calls') {
    $('#world-detail').replaceChildren(el('pre', {}, JSON.stringify(record, null, 2)))
    return
  }
  const { body } = /** @type {Answer<import('../src/schemas/index.js').CallWithMessages>} */ (
    await api(`/v1/calls/${record.id}`, key)
  )
  const call = body.data
  $('#world-detail').replaceChildren(
    el('h2', {}, `${call.caller_name ?? call.caller_phone}: ${call.status}`),
    el('p', {}, call.summary ?? ''),
    ...(call.recording_url ? [el('p', {}, link(call.recording_url, 'The recording'))] : []),
    ...call.messages.map((message) => el('p', { class: 'message' }, el('b', {}, message.role), ` ${message.content}`)),
  )
}

$('#world-form').addEventListener('submit', (event) => {
  event.preventDefault()
  refreshWorld()
})
$('#world-more').addEventListener('click', () => refreshWorld(true))

// Controls: reset, the clock, a call.
async function refreshClock() {
  const { body } = /** @type {Answer<import('../src/schemas/index.js').ClockState>} */ (
    await control('/_sandbox/clock')
  )
  $('#clock-now').textContent = body.data ? `${body.data.now} (${body.data.mode})` : ''
}

/** @param {Answer<unknown>} answer */
function said({ status, body }) {
  $('#control-result').replaceChildren(status < 300 ? el('p', {}, `Done (${status}).`) : reasonOf(body.error))
}

$('#reset-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const scenario = new FormData(/** @type {HTMLFormElement} */ (event.target)).get('scenario')
  said(await control('/_sandbox/reset', { method: 'POST', body: JSON.stringify({ scenario }) }))
  refreshClock()
})
$('#clock-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const form = new FormData(/** @type {HTMLFormElement} */ (event.target))
  const body =
    /** @type {HTMLButtonElement | null} */ (event.submitter)?.value === 'set'
      ? { now: form.get('now') }
      : { advance_seconds: Number(form.get('advance')) }
  said(await control('/_sandbox/clock', { method: 'POST', body: JSON.stringify(body) }))
  refreshClock()
})
$('#call-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  const body = Object.fromEntries(
    [...new FormData(/** @type {HTMLFormElement} */ (event.target))].filter(([, value]) => value !== ''),
  )
  const answer = /** @type {Answer<{ id: string }>} */ (
    await control('/_sandbox/calls', { method: 'POST', body: JSON.stringify(body) })
  )
  said(answer)
  if (answer.status === 201)
    $('#control-result').append(el('p', { 'data-call-id': answer.body.data.id }, `Call ${answer.body.data.id} rang.`))
})

// Sessions (at the bare root only: a session has none of its own).
async function refreshSessions() {
  if (root !== '') {
    $('#session-list tbody').replaceChildren(
      el('tr', {}, el('td', { colspan: 5 }, `This console shows the session ${session} only.`)),
    )
    return
  }
  const { body } = /** @type {Answer<import('../src/schemas/index.js').SessionInfo[]>} */ (
    await control('/_sandbox/sessions')
  )
  $('#session-list tbody').replaceChildren(
    ...body.data.map((info) =>
      el(
        'tr',
        { 'data-session': info.name },
        el('td', {}, link(`${info.name === 'default' ? '' : `/sessions/${info.name}`}/_sandbox/console/`, info.name)),
        el('td', {}, String(info.writes)),
        el('td', {}, String(info.requests)),
        el('td', {}, info.in_memory ? 'yes' : 'no'),
        el(
          'td',
          {},
          info.name === 'default'
            ? ''
            : el(
                'button',
                {
                  onclick: async () => {
                    await control(`/_sandbox/sessions/${encodeURIComponent(info.name)}`, { method: 'DELETE' })
                    refreshSessions()
                  },
                },
                'End',
              ),
        ),
      ),
    ),
  )
}

// Usage per key, and drift in proxy mode.
async function refreshUsage() {
  const usage = /** @type {Answer<import('../src/schemas/index.js').KeyUsage[]>} */ (await control('/_sandbox/usage'))
  $('#usage-list tbody').replaceChildren(
    ...usage.body.data.map((key) =>
      el(
        'tr',
        {},
        el('td', {}, key.key),
        el('td', {}, String(key.requests)),
        el('td', {}, key.scopes.needed.join(', ')),
        el('td', {}, key.scopes.unused.join(', ')),
        el('td', {}, key.scopes.missing.join(', ')),
        el(
          'td',
          {},
          key.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path} (${endpoint.requests})`).join('; '),
        ),
      ),
    ),
  )
  const drift = /** @type {Answer<import('../src/schemas/index.js').DriftReport>} */ (await control('/_sandbox/drift'))
  $('#drift').textContent =
    drift.body.data.upstream === null ? 'No proxy: nothing to compare.' : JSON.stringify(drift.body.data, null, 2)
}

/** @type {Record<string, () => unknown>} */
const refresh = {
  requests: refreshRequests,
  world: () => refreshWorld(),
  controls: refreshClock,
  sessions: refreshSessions,
  usage: refreshUsage,
}
await loadChoices()
openTab(location.hash.slice(1) in refresh ? location.hash.slice(1) : 'requests')
setInterval(() => {
  if (!$('#requests').hidden) refreshRequests()
}, 500)
