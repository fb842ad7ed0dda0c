// The call-sandbox console: plain DOM, no framework, no build step, nothing fetched from anywhere but the
// sandbox it is served by. This module is the one that reads the page's address: it makes the client, loads the
// choices, builds each view into its section and runs the tabs.

import { choices, loadChoices } from './choices.js'
import { refreshClock } from './controls.js'
import { $ } from './elements.js'
import { createRequestsView } from './requests.js'
import { createClient, rootOf, usePageClient } from './sandbox.js'
import { refreshSessions } from './sessions.js'
import { refreshUsage } from './usage.js'
import { refreshWorld } from './world.js'

const client = createClient(rootOf(location.pathname))
usePageClient(client)
$('#where').textContent = client.root === '' ? '(the default session)' : `(session ${client.session})`

await loadChoices()
const requests = createRequestsView({ ...client, base: location.origin + client.root, choices })
$('#requests').append(requests.element)

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
  requests: () => requests.refresh(),
  world: () => refreshWorld(),
  controls: refreshClock,
  sessions: refreshSessions,
  usage: refreshUsage,
}
openTab(location.hash.slice(1) in refresh ? location.hash.slice(1) : 'requests')
setInterval(() => {
  if (!$('#requests').hidden) requests.refresh({ live: true })
}, 500)
