// Requests, live: the journal searched and paged, its chart, and a row opened to the whole exchange. The list and
// the open request sit side by side (a split the developer can resize); on a narrow screen the request opens in a
// drawer over the list, closed with its button or Escape.

import { renderChart, renderLegend } from './chart.js'
import { el, inertOutside, reasonOf } from './elements.js'
import { curlOf, queryText, renderExchange, renderReplay, replayOf } from './exchange.js'

/** @typedef {import('../src/schemas/index.js').JournalEntry} JournalEntry */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */
/**
 * @typedef {object} RequestsDeps
 * @property {import('./sandbox.js').Client['control']} control
 * @property {import('./sandbox.js').Client['send']} send
 * @property {string} base the sandbox's origin and root, for a copied command's URL
 * @property {{ keys: import('./exchange.js').Keys }} choices
 * @property {(text: string) => Promise<void>} [copy] the clipboard
 * @property {() => boolean} [narrow] whether the open request is a drawer (the page is under 900 px)
 */

export const PAGE_SIZE = 50
/** How often, at most, the chart asks for its hour again while the list follows new requests. */
const CHART_EVERY_MS = 5_000
const FILTERS = ['request_id', 'path', 'status', 'key', 'since', 'until']
const number = new Intl.NumberFormat('en-US')

/**
 * What the count says: `1–50 of 1,000 matching`.
 * @param {number} offset
 * @param {number} shown
 * @param {number} count
 */
export function countText(offset, shown, count) {
  if (shown === 0) return `${number.format(count)} matching${offset > 0 ? ', none on this page' : ''}`
  return `${number.format(offset + 1)}–${number.format(offset + shown)} of ${number.format(count)} matching`
}

/**
 * The journal's query for the search form's fields (times read as UTC, as the list shows them).
 * @param {FormData} form
 */
export function searchQuery(form) {
  const query = new URLSearchParams()
  for (const name of FILTERS) {
    const value = String(form.get(name) ?? '').trim()
    if (value === '') continue
    query.set(name, name === 'since' || name === 'until' ? `${value.length === 16 ? `${value}:00` : value}Z` : value)
  }
  return query
}

/** @param {RequestsDeps} deps */
export function createRequestsView(deps) {
  const narrow = deps.narrow ?? (() => matchMedia('(max-width: 900px)').matches)
  let offset = 0
  let shown = ''
  /** @type {string | undefined} */
  let openId
  let asked = 0
  /** @type {JournalEntry[]} */
  let chartEntries = []
  let chartEnd = 0
  let chartBusy = false
  let chartAskedAt = 0

  const field = (/** @type {string} */ label, /** @type {Record<string, unknown>} */ attributes) =>
    el('label', {}, label, el('input', attributes))
  const search = el(
    'form',
    {
      class: 'row search',
      role: 'search',
      'aria-label': 'Search the requests',
      onsubmit: (/** @type {Event} */ e) => e.preventDefault(),
    },
    field('Request id', { name: 'request_id', placeholder: 'req_…', spellcheck: 'false' }),
    field('Path', { name: 'path', placeholder: '/v1/calls or /v1/*' }),
    el(
      'label',
      {},
      'Status',
      el(
        'select',
        { name: 'status' },
        ...['any', '2xx', '4xx', '5xx'].map((value) => el('option', { value: value === 'any' ? '' : value }, value)),
      ),
    ),
    field('Key', { name: 'key', placeholder: 'sk_sandbox_all or …abcd' }),
    field('From (UTC)', { name: 'since', type: 'datetime-local', step: 1 }),
    field('To (UTC)', { name: 'until', type: 'datetime-local', step: 1 }),
    el('button', { type: 'reset' }, 'Clear'),
  )
  const searchProblem = el('div', { class: 'search-problem', role: 'status' })
  const chartBox = el('div', { class: 'chart-box' })
  const count = el('span', { class: 'count', 'aria-live': 'polite' })
  const previous = el('button', { type: 'button', disabled: true, onclick: () => turn(-1) }, 'Previous')
  const next = el('button', { type: 'button', disabled: true, onclick: () => turn(1) }, 'Next')
  const newest = el('button', { type: 'button', hidden: true, onclick: () => turn(0) }, 'Newest')
  const liveNote = el('span', { class: 'live-note' })
  const rows = el('tbody')
  const list = el(
    'div',
    { class: 'list-pane', tabindex: 0, role: 'region', 'aria-label': 'Requests, newest first' },
    el(
      'table',
      { id: 'request-list' },
      el('caption', { class: 'hidden' }, 'Requests, newest first'),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Time', 'Method', 'Path', 'Status', 'Key', 'ms'].map((name) => el('th', { scope: 'col' }, name)),
        ),
      ),
      rows,
    ),
  )
  const detail = el(
    'article',
    { id: 'request-detail', class: 'detail-pane', tabindex: 0, role: 'region', 'aria-label': 'The open request' },
    el('p', {}, 'Pick a request to see it whole.'),
  )
  const separator = el('div', {
    class: 'separator',
    role: 'separator',
    tabindex: 0,
    'aria-orientation': 'vertical',
    'aria-label': 'Resize the list and the open request (arrow keys)',
    'aria-valuemin': 25,
    'aria-valuemax': 80,
    'aria-valuenow': 60,
  })
  const split = el('div', { class: 'split requests-split' }, list, separator, detail)
  const element = el(
    'div',
    { class: 'requests' },
    search,
    searchProblem,
    el(
      'figure',
      {},
      chartBox,
      renderLegend(),
      el('figcaption', {}, 'Requests per minute by status: the hour before the newest match (sandbox clock, UTC)'),
    ),
    el('div', { class: 'row pager' }, count, previous, next, newest, liveNote),
    split,
  )

  search.addEventListener('input', () => {
    offset = 0
    refresh()
  })
  search.addEventListener('reset', () => queueMicrotask(() => search.dispatchEvent(new Event('input'))))
  detail.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close()
  })

  // The split: arrow keys move it by 5%, the pointer drags it; the list keeps between 25% and 80%.
  /** @param {number} share */
  const resize = (share) => {
    const kept = Math.round(Math.min(80, Math.max(25, share)))
    separator.setAttribute('aria-valuenow', String(kept))
    split.style.setProperty('--list-share', `${kept}%`)
  }
  separator.addEventListener('keydown', (event) => {
    const now = Number(separator.getAttribute('aria-valuenow'))
    const to = { ArrowLeft: now - 5, ArrowRight: now + 5, Home: 25, End: 80 }[event.key]
    if (to === undefined) return
    event.preventDefault()
    resize(to)
  })
  separator.addEventListener('pointerdown', (event) => {
    separator.setPointerCapture(event.pointerId)
    const move = (/** @type {PointerEvent} */ moved) => {
      const box = split.getBoundingClientRect()
      resize(((moved.clientX - box.left) / box.width) * 100)
    }
    separator.addEventListener('pointermove', move)
    separator.addEventListener('pointerup', () => separator.removeEventListener('pointermove', move), { once: true })
  })

  /** @param {-1 | 0 | 1} step 0: back to the newest page */
  function turn(step) {
    offset = step === 0 ? 0 : Math.max(0, offset + step * PAGE_SIZE)
    refresh()
  }

  /**
   * Asks the journal for the page shown. `live`: the twice-a-second poll, which moves the first page only, so that
   * a page past it holds still while it is read.
   * @param {{ live?: boolean }} [how]
   */
  async function refresh({ live = false } = {}) {
    if (live && offset > 0) return
    const ask = ++asked
    const filters = searchQuery(new FormData(/** @type {HTMLFormElement} */ (search)))
    const query = new URLSearchParams({
      limit: String(PAGE_SIZE),
      offset: String(offset),
      ...Object.fromEntries(filters),
    })
    const { status, body } = /** @type {Answer<JournalEntry[]>} */ (await deps.control(`/_sandbox/requests?${query}`))
    // A later question was asked meanwhile (the developer typed on): its answer is the one to show.
    if (ask !== asked) return
    if (status !== 200) {
      searchProblem.replaceChildren(reasonOf(body.error))
      return
    }
    searchProblem.replaceChildren()
    count.textContent = countText(offset, body.data.length, body.count)
    previous.toggleAttribute('disabled', offset === 0)
    next.toggleAttribute('disabled', offset + body.data.length >= body.count)
    newest.hidden = offset === 0
    liveNote.textContent =
      offset === 0
        ? 'Live: the first page follows new requests.'
        : 'Held still while you read: only the first page follows new requests.'
    const now = `${offset} ${body.count} ${body.data.map((entry) => entry.request_id).join()}`
    if (now === shown) return
    shown = now
    showRows(body.data)
    if (offset === 0) refreshChart(filters, body.data[0], live)
  }

  /** @param {JournalEntry[]} entries */
  function showRows(entries) {
    const focused = /** @type {HTMLElement | null} */ (rows.querySelector('tr:focus'))?.dataset.requestId
    rows.replaceChildren(
      ...entries.map((entry) => {
        const path = entry.path + queryText(entry.query)
        return el(
          'tr',
          {
            tabindex: 0,
            'data-request-id': entry.request_id,
            'aria-selected': String(entry.request_id === openId),
            onclick: () => open(entry),
            onkeydown: (/** @type {KeyboardEvent} */ event) => {
              if (event.key !== 'Enter') return
              // Or the same Enter, reaching the drawer's Close button once it has the focus, would close it again.
              event.preventDefault()
              open(entry)
            },
          },
          el('td', {}, entry.timestamp.slice(11, 19)),
          el('td', {}, entry.method),
          el('td', { class: 'cut', title: path }, path),
          el('td', { class: `s${String(entry.status)[0]}` }, String(entry.status)),
          el('td', { class: 'cut', title: entry.key ?? '(none)' }, entry.key ?? '(none)'),
          el('td', {}, String(entry.duration_ms)),
        )
      }),
    )
    if (focused) rowOf(focused)?.focus()
  }

  /** @param {string} id */
  const rowOf = (id) =>
    /** @type {HTMLElement | null} */ (rows.querySelector(`tr[data-request-id="${CSS.escape(id)}"]`))

  /** @param {JournalEntry} entry */
  function open(entry) {
    openId = entry.request_id
    for (const row of /** @type {NodeListOf<HTMLElement>} */ (rows.querySelectorAll('tr'))) {
      row.setAttribute('aria-selected', String(row.dataset.requestId === openId))
    }
    const curl = el('pre', { class: 'curl', hidden: true })
    const replayed = el('div', { 'aria-live': 'polite' })
    const closer = el('button', { type: 'button', class: 'close', onclick: close }, 'Close')
    detail.replaceChildren(
      el(
        'div',
        { class: 'detail-tools' },
        el('button', { type: 'button', onclick: () => copy(entry, curl) }, 'Copy as curl'),
        el('button', { type: 'button', onclick: () => replay(entry, replayed) }, 'Replay'),
        closer,
      ),
      curl,
      renderExchange(entry, deps.choices.keys),
      replayed,
    )
    split.classList.add('open')
    detail.scrollTop = 0
    asDrawer()
    if (narrow()) closer.focus()
  }

  /** @type {(() => void) | undefined} */
  let release
  /**
   * The open request as the page has it: a modal drawer on a narrow page, a pane beside the list else; never a modal
   * while its tab is hidden (the page would be inert with no drawer in sight to close).
   */
  function asDrawer() {
    release?.()
    release = undefined
    const drawer = openId !== undefined && narrow() && !detail.closest('[hidden]')
    detail.setAttribute('role', drawer ? 'dialog' : 'region')
    if (drawer) detail.setAttribute('aria-modal', 'true')
    else detail.removeAttribute('aria-modal')
    if (drawer) release = inertOutside(detail)
  }
  addEventListener('resize', () => {
    if (openId !== undefined) asDrawer()
  })

  function close() {
    split.classList.remove('open')
    detail.replaceChildren(el('p', {}, 'Pick a request to see it whole.'))
    const id = openId
    openId = undefined
    asDrawer()
    for (const row of rows.querySelectorAll('tr[aria-selected="true"]')) row.setAttribute('aria-selected', 'false')
    if (id) rowOf(id)?.focus()
  }

  /** @param {JournalEntry} entry @param {HTMLElement} shownCurl */
  async function copy(entry, shownCurl) {
    shownCurl.hidden = false
    let command
    try {
      command = curlOf(entry, deps.base)
    } catch (error) {
      // A NUL in the method, the URL or a header: no command line can pass it on, and the page says so.
      shownCurl.textContent = /** @type {Error} */ (error).message
      shownCurl.dataset.copied = 'false'
      return
    }
    shownCurl.textContent = command
    try {
      await (deps.copy ?? ((text) => navigator.clipboard.writeText(text)))(command)
      shownCurl.dataset.copied = 'true'
    } catch {
      // No clipboard (a page not allowed it): the command is shown, to select and copy by hand.
      shownCurl.dataset.copied = 'false'
    }
  }

  /** @param {JournalEntry} entry @param {HTMLElement} into */
  async function replay(entry, into) {
    const { path, init, left } = replayOf(entry, deps.choices.keys)
    into.replaceChildren(el('p', {}, 'Replaying…'))
    const answer = await deps.send(path, init)
    into.replaceChildren(renderReplay(entry, answer, left))
    refresh()
  }

  /**
   * The chart counts what the journal holds for the hour before the newest match: asked again only when the first
   * page changed, one question at a time, and while it follows new requests at most every few seconds (the hour's
   * entries are many more bytes than a page: a busy server is not asked for them twice a second).
   * @param {URLSearchParams} filters
   * @param {JournalEntry | undefined} newestEntry
   * @param {boolean} live
   */
  async function refreshChart(filters, newestEntry, live) {
    if (chartBusy || (live && Date.now() - chartAskedAt < CHART_EVERY_MS)) return
    chartBusy = true
    chartAskedAt = Date.now()
    try {
      chartEnd = newestEntry ? Date.parse(newestEntry.timestamp) : chartEnd || Date.now()
      const since = new Date(Math.floor(chartEnd / 60_000) * 60_000 - 59 * 60_000).toISOString()
      const query = new URLSearchParams(filters)
      if (!query.has('since') || String(query.get('since')) < since) query.set('since', since)
      const { status, body } = /** @type {Answer<JournalEntry[]>} */ (await deps.control(`/_sandbox/requests?${query}`))
      chartEntries = status === 200 ? body.data : []
      drawChart()
    } finally {
      chartBusy = false
    }
  }

  function drawChart() {
    chartBox.replaceChildren(
      renderChart(chartEntries, { end: chartEnd || Date.now(), width: chartBox.clientWidth || 600 }),
    )
  }

  // The chart is drawn to its box's width in pixels: a new width draws it again.
  if (typeof ResizeObserver === 'function')
    new ResizeObserver(() => chartEntries.length > 0 && drawChart()).observe(chartBox)

  // relayout: the page changed (its tab shown or hidden), so the open request is a drawer, or not, again.
  return { element, refresh, close, relayout: asDrawer }
}
