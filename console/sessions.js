// Sessions (at the bare root only: a session has none of its own).

import { el, $, link } from './elements.js'
import { control, root, session } from './sandbox.js'

/** @template T @typedef {import('./sandbox.js').Answer<T>} Answer */

export async function refreshSessions() {
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
