// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { createSessionsView } from '../../console/sessions.js'
import { CHOICES, fakeClient } from './fakeClient.js'

const SETTINGS = { latency: null, error_rate: 0, rate_limit: null, changed: [] }
const info = (name: string) => ({ name, writes: 2, requests: 5, in_memory: true, settings: SETTINGS })

function sessionsOf(table: Parameters<typeof fakeClient>[0], root = '') {
  const client = fakeClient(table)
  const session = root === '' ? 'default' : root.slice(root.lastIndexOf('/') + 1)
  const view = createSessionsView({ ...client, choices: CHOICES, root, session })
  document.body.replaceChildren(view.element)
  return { client, view, element: view.element }
}
const button = (within: Element, name: string) =>
  [...within.querySelectorAll('button')].find((one) => one.textContent === name) as HTMLButtonElement

describe('the Sessions tab', () => {
  it("links each session's console, and offers End for every one but the default", async () => {
    const { element, view } = sessionsOf({
      'GET /_sandbox/sessions': { status: 200, body: { data: [info('default'), info('ci-1')] } },
    })
    await view.refresh()
    const links = [...element.querySelectorAll('a')].map((a) => [a.textContent, new URL(a.href).pathname])
    expect(links).toEqual([
      ['default', '/_sandbox/console/'],
      ['ci-1', '/sessions/ci-1/_sandbox/console/'],
    ])
    expect([...element.querySelectorAll('button')].map((one) => one.textContent)).toEqual(['End ci-1'])
    expect(element.querySelector('.empty-state')).toBeNull()
  })

  it('says how to start a session when there is none but the default', async () => {
    const { element, view } = sessionsOf({
      'GET /_sandbox/sessions': { status: 200, body: { data: [info('default')] } },
    })
    await view.refresh()
    expect(element.querySelector('.empty-state')?.textContent).toContain('No named sessions yet')
  })

  it('asks before ending a session: Cancel keeps it, the confirmation ends it', async () => {
    let sessions = [info('default'), info('ci-1')]
    const { client, element, view } = sessionsOf({
      'GET /_sandbox/sessions': () => ({ status: 200, body: { data: sessions } }),
      'DELETE /_sandbox/sessions/ci-1': () => {
        sessions = [info('default')]
        return { status: 200, body: { data: info('ci-1') } }
      },
    })
    await view.refresh()
    button(element, 'End ci-1').click()
    expect(element.querySelector('.confirm p')?.textContent).toContain('End the session ci-1?')
    button(element, 'Cancel').click()
    expect(client.sent.filter((sent) => sent.method === 'DELETE')).toEqual([])
    button(element, 'End ci-1').click()
    ;(element.querySelector('.confirm .danger') as HTMLButtonElement).click()
    await vi.waitFor(() => expect(element.querySelector('[data-session=ci-1]')).toBeNull())
    expect(client.sent.filter((sent) => sent.method === 'DELETE').map((sent) => sent.path)).toEqual([
      '/_sandbox/sessions/ci-1',
    ])
    expect(element.querySelector('.done')?.textContent).toBe('The session ci-1 has ended.')
  })

  it("in a session's console, shows that session only, with a link to all of them", async () => {
    const { client, element, view } = sessionsOf({}, '/sessions/ci-1')
    await view.refresh()
    expect(element.textContent).toContain('This console shows the session ci-1 only.')
    expect(element.querySelector('a')?.textContent).toBe('All sessions')
    expect(client.sent).toEqual([])
  })
})
