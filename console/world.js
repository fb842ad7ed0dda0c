// World: each kind's records through the API itself, with its cursors, and one record whole.

import { el, link, reasonOf } from './elements.js'

/** @typedef {import('../src/schemas/index.js').Choices} Choices */
/** @typedef {Choices['kinds'][number]} KindChoice */
/** @typedef {{ id: string } & Record<string, unknown>} ApiRecord */
/** @typedef {import('../src/schemas/index.js').CallWithMessages} CallWithMessages */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */
/** @typedef {import('./choices.js').ViewDeps} ViewDeps */

/** A page of a list: enough to fill the table, few enough to read. */
const PAGE = 20

/**
 * The World tab: pick a key and a kind, list its records (paged), open one. `refresh()` reloads the list and the
 * open record, so the view follows a reset or a clock change: a record gone since is closed with a note.
 * @param {ViewDeps} deps
 */
export function createWorldView({ api, choices }) {
  const keyInput = el('input', { name: 'key', value: 'sk_sandbox_all', autocomplete: 'off' })
  const kindSelect = el(
    'select',
    // Another kind is shown at once: Show is for the key, or to read the list again.
    { name: 'kind', onchange: () => /** @type {HTMLFormElement} */ (form).requestSubmit() },
    ...choices.kinds.map((choice) => el('option', { value: choice.kind }, choice.kind)),
  )
  const list = el('div', { class: 'world-list', id: 'world-list' })
  const more = el('button', { type: 'button', hidden: true, onclick: () => load(true) }, 'Next page')
  const detail = el(
    'article',
    { class: 'world-detail', id: 'world-detail', 'aria-live': 'polite' },
    el('p', {}, 'Pick a record.'),
  )
  const form = el(
    'form',
    {
      class: 'row',
      onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault()
        open = undefined
        detail.replaceChildren(el('p', {}, 'Pick a record.'))
        load(false)
      },
    },
    el('label', {}, 'API key', keyInput),
    el('label', {}, 'Records', kindSelect),
    el('button', { type: 'submit' }, 'Show'),
  )
  const element = el('div', { class: 'world' }, form, el('div', { class: 'split' }, el('div', {}, list, more), detail))

  /** @type {ApiRecord[]} */
  let records = []
  /** @type {string | null} */
  let cursor = null
  /** How many loads were started: only the latest one's answer is shown. */
  let loads = 0
  /** The record open in the detail, to read again after a reset. @type {{ kind: string, record: ApiRecord } | undefined} */
  let open

  const key = () => /** @type {HTMLInputElement} */ (keyInput).value
  const kindChoice = () =>
    /** @type {KindChoice} */ (
      choices.kinds.find((choice) => choice.kind === /** @type {HTMLSelectElement} */ (kindSelect).value)
    )

  /** @param {boolean} nextPage */
  async function load(nextPage) {
    const choice = kindChoice()
    if (!choice) return
    const mine = ++loads
    const after = nextPage && cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
    const { status, body } = /** @type {Answer<ApiRecord[]>} */ (
      await api(`/v1/${choice.kind}?limit=${PAGE}${after}`, key())
    )
    // A later load (another kind picked meanwhile) has the last word, whichever answer comes back last.
    if (mine !== loads) return
    if (status !== 200) {
      list.replaceChildren(reasonOf(body.error))
      more.hidden = true
      return
    }
    records = nextPage ? [...records, ...body.data] : body.data
    cursor = body.next_cursor
    more.hidden = !body.has_more
    list.replaceChildren(renderRecordList(choice, records, (record) => show(choice.kind, record)))
  }

  /**
   * Opens a record: a kind the API reads one of is read whole (a call with its messages).
   * @param {string} kind
   * @param {ApiRecord} record
   */
  async function show(kind, record) {
    await read(kind, record)
    // One column (a narrow screen): the record opens below the list, so the page goes to it.
    if (matchMedia('(max-width: 700px)').matches) detail.scrollIntoView?.()
  }

  /**
   * @param {string} kind
   * @param {ApiRecord} record
   */
  async function read(kind, record) {
    const choice = /** @type {KindChoice} */ (choices.kinds.find((one) => one.kind === kind))
    open = { kind, record }
    if (!choice.reads_one) {
      detail.replaceChildren(renderRecord(choice, record, openLink))
      return
    }
    const { status, body } = /** @type {Answer<ApiRecord>} */ (
      // One path segment, whatever the id: a recorded world or a real service names the records, not the console.
      await api(`/v1/${kind}/${encodeURIComponent(record.id)}`, key())
    )
    if (status === 404) return closeGone(choice, record.id)
    if (status !== 200) return detail.replaceChildren(reasonOf(body.error))
    open = { kind, record: body.data }
    detail.replaceChildren(renderRecord(choice, body.data, openLink))
  }

  /** @param {string} kind @param {string} id */
  function openLink(kind, id) {
    show(kind, { id })
  }

  /** @param {KindChoice} choice @param {string} id */
  function closeGone(choice, id) {
    open = undefined
    detail.replaceChildren(
      el(
        'p',
        { class: 'note', 'data-gone': id },
        `The ${choice.singular} ${id} is no longer in this world (a reset or the clock removed it).`,
      ),
    )
  }

  /** The list again, and the open record: read again, or looked for in the list when the API reads none of its kind. */
  async function refresh() {
    await load(false)
    if (!open) return
    const choice = /** @type {KindChoice} */ (choices.kinds.find((one) => one.kind === open?.kind))
    if (choice.reads_one) return read(open.kind, open.record)
    const id = open.record.id
    const still = open.kind === kindChoice().kind ? records.find((record) => record.id === id) : undefined
    if (still) detail.replaceChildren(renderRecord(choice, still, openLink))
    else closeGone(choice, id)
  }

  return { element, refresh }
}

/**
 * A kind's records as a table of its columns; a row opens with a click or Enter. No records: what to do to make one.
 * @param {KindChoice} choice
 * @param {ApiRecord[]} records
 * @param {(record: ApiRecord) => void} onOpen
 */
export function renderRecordList(choice, records, onOpen) {
  if (records.length === 0)
    return el('p', { class: 'empty-state' }, `No ${choice.kind} in this world. Ring a call in Controls to make one.`)
  return el(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': `The ${choice.kind}` },
    renderTable(choice, records, onOpen),
  )
}

/**
 * @param {KindChoice} choice
 * @param {ApiRecord[]} records
 * @param {(record: ApiRecord) => void} onOpen
 */
function renderTable(choice, records, onOpen) {
  return el(
    'table',
    { 'data-kind': choice.kind },
    el('caption', { class: 'hidden' }, `${choice.kind}, newest first`),
    el('thead', {}, el('tr', {}, ...choice.columns.map((column) => el('th', { scope: 'col' }, column)))),
    el(
      'tbody',
      {},
      ...records.map((record) =>
        el(
          'tr',
          {
            tabindex: 0,
            'data-id': record.id,
            onclick: () => onOpen(record),
            onkeydown: (/** @type {KeyboardEvent} */ event) => event.key === 'Enter' && onOpen(record),
          },
          // The last column holds the long text (a summary): two lines of it, the whole on hover.
          ...choice.columns.map((column, index) =>
            index < choice.columns.length - 1
              ? el('td', {}, textOf(record[column]))
              : el('td', {}, el('span', { class: 'clamp', title: textOf(record[column]) }, textOf(record[column]))),
          ),
        ),
      ),
    ),
  )
}

/**
 * One record: a call as its conversation (and its recording's link); any record's fields as a definition list, a
 * field that names another record as a button that opens it.
 * @param {KindChoice} choice
 * @param {ApiRecord} record
 * @param {(kind: string, id: string) => void} onLink
 */
export function renderRecord(choice, record, onLink) {
  const call = choice.kind === 'calls' ? /** @type {Partial<CallWithMessages>} */ (record) : undefined
  const fields = Object.entries(record).filter(([name]) => name !== 'messages')
  return el(
    'div',
    { 'data-record': record.id },
    el('h2', {}, headingOf(choice, record)),
    ...(call?.recording_url ? [el('p', {}, link(call.recording_url, 'The recording'))] : []),
    el(
      'dl',
      {},
      ...fields.flatMap(([name, value]) => {
        const target = choice.links[name]
        const shown =
          target && typeof value === 'string'
            ? el('button', { type: 'button', class: 'link', onclick: () => onLink(target, value) }, value)
            : textOf(value)
        return [el('dt', {}, name), el('dd', {}, shown)]
      }),
    ),
    ...(call?.messages
      ? [
          el('h3', {}, 'The conversation'),
          ...call.messages.map((message) =>
            el('p', { class: 'message' }, el('b', {}, message.role), ` ${message.content}`),
          ),
        ]
      : []),
  )
}

/** @param {KindChoice} choice @param {ApiRecord} record */
function headingOf(choice, record) {
  const name = record.caller_name ?? record.name ?? record.caller_phone ?? record.phone
  const kind = choice.singular.charAt(0).toUpperCase() + choice.singular.slice(1)
  return `${kind} ${name ? `${textOf(name)}: ` : ''}${textOf(record.status ?? record.id)}`
}

/** A value as text: nothing for null, JSON for an object (a record's text runs nothing, whatever it holds). */
function textOf(/** @type {unknown} */ value) {
  if (value === null || value === undefined) return ''
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}
