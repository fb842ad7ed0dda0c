// The call-sandbox console: plain DOM, no framework, no build step, nothing fetched from anywhere but the
// sandbox it is served by. This module opens the page: its tabs, and what each one shows when opened; each tab's
// module (requests.js, world.js, controls.js, sessions.js, usage.js) wires its own forms as it loads.

import { loadChoices } from './choices.js'
import { refreshClock } from './controls.js'
import { $ } from './elements.js'
import { refreshRequests } from './requests.js'
import { root, session } from './sandbox.js'
import { refreshSessions } from './sessions.js'
import { refreshUsage } from './usage.js'
import { refreshWorld } from './world.js'

$('#where').textContent = root === '' ? '(the default session)' : `(session ${session})`

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
