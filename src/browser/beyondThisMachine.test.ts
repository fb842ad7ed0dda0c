import { describe, expect, it } from 'vitest'
import { beyondThisMachineWarning, isThisMachine } from './beyondThisMachine.js'

describe('isThisMachine', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]', ''])(
    '%j is this machine',
    (hostname) => expect(isThisMachine(hostname)).toBe(true),
  )

  it.each([
    'app.example.com',
    'localhost.example.com',
    'notlocalhost',
    '127.0.0.1.nip.io',
    '10.0.0.5',
    '[::2]',
    '0.0.0.0',
  ])('%j is not', (hostname) => expect(isThisMachine(hostname)).toBe(false))
})

describe('beyondThisMachineWarning', () => {
  it('names the host of a page that comes from elsewhere, and what to do', () => {
    const warning = beyondThisMachineWarning({ hostname: 'app.example.com' })
    expect(warning).toContain('this page comes from app.example.com, not from this machine')
    expect(warning).toContain('import.meta.env.DEV')
  })

  it('says nothing on this machine, nor outside a page', () => {
    expect(beyondThisMachineWarning({ hostname: '127.0.0.1' })).toBeUndefined()
    expect(beyondThisMachineWarning(undefined)).toBeUndefined()
  })
})

describe('beyondThisMachineWarning on a dev server', () => {
  /** A page's document, as far as the warning looks: the scripts that match a selector. */
  const page = (scripts: string[]) => ({
    querySelector: (selector: string) =>
      scripts.find((src) => selector === 'script[src$="/@vite/client"]' && src.endsWith('/@vite/client')) ?? null,
  })

  it("says nothing on Vite's dev server opened by another name (a cloud IDE's address, the network's)", () => {
    expect(beyondThisMachineWarning({ hostname: 'abc-5173.app.github.dev' }, page(['/@vite/client']))).toBeUndefined()
    expect(beyondThisMachineWarning({ hostname: '192.168.1.20' }, page(['/app/@vite/client']))).toBeUndefined()
  })

  it('warns on a built page from elsewhere, which has no Vite client', () => {
    expect(beyondThisMachineWarning({ hostname: 'app.example.com' }, page(['/assets/index-abc.js']))).toContain(
      'not from this machine',
    )
  })
})
