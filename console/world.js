// World: the API's own lists, with its cursors.

import { choices } from './choices.js'
import { $, el, link, reasonOf } from './elements.js'
import { api } from './sandbox.js'

/** @typedef {'calls' | 'contacts' | 'leads' | 'appointments'} RecordKind */
/** @typedef {import('../src/schemas/index.js').Choices} Choices */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/** @type {string | null} */
let worldCursor = null
export async function refreshWorld(append = false) {
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
