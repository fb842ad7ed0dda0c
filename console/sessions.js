// Sessions (at the bare root only: a session has none of its own): each one's console, and End, once confirmed.

import { confirmation, resultOf } from './cards.js'
import { el, link } from './elements.js'

/** @typedef {import('./choices.js').ViewDeps} ViewDeps */
/** @typedef {import('../src/schemas/index.js').SessionInfo} SessionInfo */
/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

/** @param {ViewDeps} deps */
export function createSessionsView({ control, root, session }) {
  const list = el('div', { class: 'session-list' })
  const result = el('output', { class: 'result', 'aria-live': 'polite' })
  const element = el('div', { class: 'sessions' }, el('h2', {}, 'Sessions'), list, result)

  async function refresh() {
    if (root !== '') {
      list.replaceChildren(
        el('p', {}, `This console shows the session ${session} only. `, link('/_sandbox/console/', 'All sessions')),
      )
      return
    }
    const answer = /** @type {Answer<SessionInfo[]>} */ (await control('/_sandbox/sessions'))
    if (answer.status !== 200) return list.replaceChildren(resultOf(answer, ''))
    list.replaceChildren(renderSessions(answer.body.data, askToEnd))
  }

  /** @param {SessionInfo} info @param {HTMLElement} button */
  function askToEnd(info, button) {
    list.querySelector('.confirm')?.remove()
    button.after(
      confirmation({
        question: `End the session ${info.name}? Its world, journal and settings are gone for everyone using it.`,
        confirm: `End ${info.name}`,
        returnTo: button,
        onConfirm: async () => {
          const answer = await control(`/_sandbox/sessions/${encodeURIComponent(info.name)}`, { method: 'DELETE' })
          result.replaceChildren(resultOf(answer, `The session ${info.name} has ended.`))
          await refresh()
        },
      }),
    )
  }
  return { element, refresh }
}

/**
 * Every session: a link to its console, its writes and requests, whether it is in memory, and End (none for the
 * default session, which cannot end).
 * @param {SessionInfo[]} sessions
 * @param {(info: SessionInfo, button: HTMLElement) => void} onEnd
 */
export function renderSessions(sessions, onEnd) {
  const named = sessions.filter((info) => info.name !== 'default')
  const table = el(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': 'Sessions' },
    el(
      'table',
      {},
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Name', 'Writes', 'Requests', 'In memory', ''].map((name) => el('th', { scope: 'col' }, name)),
        ),
      ),
      el(
        'tbody',
        {},
        ...sessions.map((info) => {
          const end =
            info.name === 'default'
              ? undefined
              : el('button', { type: 'button', onclick: () => onEnd(info, end ?? el('span')) }, `End ${info.name}`)
          return el(
            'tr',
            { 'data-session': info.name },
            el(
              'td',
              {},
              link(
                `${info.name === 'default' ? '' : `/sessions/${encodeURIComponent(info.name)}`}/_sandbox/console/`,
                info.name,
              ),
            ),
            el('td', {}, String(info.writes)),
            el('td', {}, String(info.requests)),
            el('td', {}, info.in_memory ? 'yes' : 'no'),
            el('td', {}, end),
          )
        }),
      ),
    ),
  )
  if (named.length > 0) return table
  return el(
    'div',
    {},
    table,
    el(
      'p',
      { class: 'empty-state' },
      'No named sessions yet. A request under /sessions/{name}/ starts one, such as /sessions/ci-1/v1/me.',
    ),
  )
}
