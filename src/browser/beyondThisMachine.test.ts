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
