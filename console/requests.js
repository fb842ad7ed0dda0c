// Requests, live: the journal polled twice a second; a row opens to the whole exchange.

import { drawChart } from './chart.js'
import { $, el, reasonOf } from './elements.js'
import { control } from './sandbox.js'

/** @typedef {import('../src/schemas/index.js').JournalEntry} JournalEntry */
/** @typedef {import('./elements.js').ApiError} ApiError */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/** @type {string | undefined} */
let selectedRequest
let shownIds = ''
export async function refreshRequests() {
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

$('#filters').addEventListener('input', () => {
  shownIds = ''
  refreshRequests()
})
$('#filters').addEventListener('submit', (event) => event.preventDefault())
