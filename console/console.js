// The call-sandbox console: plain DOM, no framework, no build step, nothing fetched from anywhere but the
// sandbox it is served by. This module is the one that reads the page's address: it makes the client, loads the
// choices, builds each view (requests.js, world.js, controls.js, sessions.js, usage.js) into its section and runs
// the tabs.

import { loadChoices, NO_CHOICES } from './choices.js'
import { createControlsView } from './controls.js'
import { $, reasonOf } from './elements.js'
import { createRequestsView } from './requests.js'
import { createClient, rootOf } from './sandbox.js'
import { createSessionsView } from './sessions.js'
import { createUsageView } from './usage.js'
import { createWorldView } from './world.js'

const client = createClient(rootOf(location.pathname))
const { control, api, root, session } = client
$('#where').textContent = root === '' ? '(the default session)' : `(session ${session})`

const loaded = await loadChoices(control)
// Without the sandbox's choices the forms offer nothing, and the page says why.
if ('error' in loaded) $('main').prepend(reasonOf(loaded.error))
const choices = 'choices' in loaded ? loaded.choices : NO_CHOICES
const deps = { control, api, choices, root, session }
const requests = createRequestsView({ ...client, base: location.origin + root, choices })
const world = createWorldView(deps)
// After a reset or a clock change, the World tab reads the world again: no record shown that is gone.
const controls = createControlsView({ ...deps, onWorldChange: () => world.refresh() })
const sessions = createSessionsView(deps)
const usage = createUsageView(deps)
$('#requests').append(requests.element)
$('#world').append(world.element)
$('#controls').append(controls.element)
$('#sessions').append(sessions.element)
$('#usage').append(usage.element)

/** @type {Record<string, () => unknown>} */
const refresh = {
  requests: () => requests.refresh(),
  world: world.refresh,
  controls: controls.refresh,
  sessions: sessions.refresh,
  usage: usage.refresh,
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
  // The clock's shown time ticks only while it can be seen: it is read again when its tab opens. The open request is
  // a modal drawer only while its tab is shown.
  if (id !== 'controls') controls.stop()
  requests.relayout()
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

// Own keys only: a link to `#__proto__` or `#toString` opens the Requests tab, not an inherited function.
openTab(Object.hasOwn(refresh, location.hash.slice(1)) ? location.hash.slice(1) : 'requests')
setInterval(() => {
  if (!$('#requests').hidden) requests.refresh({ live: true })
}, 500)
