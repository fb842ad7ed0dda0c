import { afterEach, describe, expect, it, vi } from 'vitest'
import { defaultOrganizations } from '../world/fixtures.js'
import { publicKeysOf, sameSecret, shownCredential, shownHeader } from './credentials.js'

const ADMIN = 'admin-token-s3cret-0001'

describe('shownCredential', () => {
  it.each([
    ['a built-in key, whole', 'sk_sandbox_readonly', 'sk_sandbox_readonly'],
    ['an unknown key, its last 4', 'sk_live_51HxQz9abcd', '…abcd'],
    ['a key of 12 characters, its last 4', 'sk_team_1234', '…1234'],
    ['a key of 11 characters, nothing', 'sk_team_123', '…'],
    ['a built-in key with one character changed, as unknown', 'sk_sandbox_alL', '…_alL'],
    ['the admin token, never any of it', ADMIN, '(admin token)'],
    ['a wrong admin token, as any unknown credential', 'admin-token-s3cret-0002', '…0002'],
    ['nothing, nothing', '', ''],
  ])('shows %s', (_, credential, shown) => {
    expect(shownCredential(credential, ADMIN)).toBe(shown)
  })

  it('shows the admin token as any other credential when the sandbox has none', () => {
    expect(shownCredential(ADMIN)).toBe('…0001')
  })
})

describe('shownHeader', () => {
  it.each([
    ['authorization', 'Bearer sk_sandbox_all', 'Bearer sk_sandbox_all'],
    ['authorization', 'Bearer sk_live_51HxQz9abcd', 'Bearer …abcd'],
    ['authorization', 'bearer  sk_live_51HxQz9abcd ', 'bearer …abcd'],
    ['authorization', 'Bearer unknown', 'Bearer …'],
    ['authorization', `Bearer ${ADMIN}`, 'Bearer (admin token)'],
    ['authorization', 'Basic dXNlcjpodW50ZXIyaHVudGVyMg==', 'Basic …'],
    ['authorization', 'Token a b c', 'Token …'],
    ['authorization', 'Token sk_live_51HxQz9abcd extra', 'Token …xtra'],
    ['authorization', 'Digest username="ana", response="6629fae49393a05397450978507c4ef1"', 'Digest …ef1"'],
    ['authorization', 'Bearer', 'Bearer'],
    ['authorization', 'sk_live_51HxQz9abcd', '…abcd'],
    ['authorization', 'sk_live_51HxQz9 abcd', '…abcd'],
    ['authorization', '', ''],
    ['proxy-authorization', 'Basic dXNlcjpwYXNzd29yZA==', 'Basic …'],
    ['Proxy-Authorization', 'Bearer sk_live_51HxQz9abcd', 'Bearer …abcd'],
    ['cookie', 'theme=dark; sid=8f14e45fceea167a5a36', 'theme=…; sid=…5a36'],
    ['cookie', 'sk_live_51HxQz9abcd', '…abcd'],
    ['set-cookie', 'sid=8f14e45fceea167a5a36; Path=/; HttpOnly; Secure', 'sid=…5a36; Path=/; HttpOnly; Secure'],
    ['x-api-key', 'sk_live_51HxQz9abcd', '…abcd'],
    ['x-api-key', 'sk_sandbox_org2', 'sk_sandbox_org2'],
    ['x-auth-token', 'eyJhbGciOiJIUzI1NiJ9.e30.abcd', '…abcd'],
    ['x-csrf-token', 'short', '…'],
    ['x-session-id', '0123456789abcdef', '…cdef'],
    ['x-client-secret', 'cs_0123456789wxyz', '…wxyz'],
    ['x-password', 'hunter2', '…'],
    ['ocp-apim-subscription-key', '0123456789abcdef0123', '…0123'],
    ['x-hub-signature-256', 'sha256=0123456789abcdef', '…cdef'],
    ['x-amz-security-token', ADMIN, '(admin token)'],
    ['www-authenticate', 'Bearer realm="call-sandbox"', 'Bearer realm="call-sandbox"'],
    ['content-type', 'application/json', 'application/json'],
    ['x-request-id', 'req_0123456789abcdefghijklmn', 'req_0123456789abcdefghijklmn'],
  ])('%s: %s shows as %s', (name, value, shown) => {
    expect(shownHeader(name, value, ADMIN)).toBe(shown)
  })
})

describe('publicKeysOf', () => {
  const keysOf = (organizations: typeof defaultOrganizations) => organizations.flatMap(({ keys }) => keys)

  it('names the built-in keys', () => {
    expect(publicKeysOf(keysOf(defaultOrganizations))).toEqual([
      'sk_sandbox_all',
      'sk_sandbox_readonly',
      'sk_sandbox_calls',
      'sk_sandbox_org2',
    ])
  })

  it("names none beside a key of a user's own", () => {
    expect(publicKeysOf([...keysOf(defaultOrganizations), { key: 'sk_team_alpha_0001' }])).toEqual([])
    expect(publicKeysOf([])).toEqual([])
  })
})

describe.each([
  ['in Node (timingSafeEqual over digests)', false],
  ['without node:crypto (a browser)', true],
])('sameSecret %s', (_, withoutNode) => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.each([
    [ADMIN, ADMIN, true],
    [`${ADMIN}x`, ADMIN, false],
    [ADMIN.slice(0, -1), ADMIN, false],
    ['', ADMIN, false],
    ['admin-token-s3cret-0002', ADMIN, false],
    ['\u00e9t\u00e9-token', '\u00e9t\u00e9-token', true],
    ['\u00e9t\u00e9-token', 'ete-token', false],
  ])('%o is %o: %o', (given, secret, same) => {
    const getBuiltinModule = vi.spyOn(process, 'getBuiltinModule')
    if (withoutNode) getBuiltinModule.mockReturnValue(undefined)
    expect(sameSecret(given, secret)).toBe(same)
    expect(getBuiltinModule).toHaveBeenCalledWith('node:crypto')
  })
})
