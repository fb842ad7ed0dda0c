import { afterEach, describe, expect, it, vi } from 'vitest'
import { defaultOrganizations } from '../seed/fixtures.js'
import {
  PLAIN_HEADERS,
  credentialsOf,
  isCredentialName,
  publicKeysOf,
  sameSecret,
  shownCredential,
  shownHeader,
  shownParameter,
  shownUrl,
  withUrlsShown,
  withUserInfoShown,
} from './credentials.js'

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
    [
      'set-cookie',
      'sid=8f14e45fceea167a5a36; Expires=Wed, 21 Oct 2026 07:28:00 GMT, csrf=0c9d8e7f6a5b4c3d2e1f; Secure,x=1',
      'sid=…5a36; Expires=Wed, 21 Oct 2026 07:28:00 GMT\ncsrf=…2e1f; Secure\nx=…',
    ],
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
    [
      'referer',
      'https://app.test/inbox?tab=calls&token=tok_0123456789wxyz',
      'https://app.test/inbox?tab=calls&token=…wxyz',
    ],
    ['location', '/v1/calls/abc', '/v1/calls/abc'],
    ['content-type', 'application/json', 'application/json'],
    ['x-request-id', 'req_0123456789abcdefghijklmn', 'req_0123456789abcdefghijklmn'],
  ])('%s: %s shows as %s', (name, value, shown) => {
    expect(shownHeader(name, value, ADMIN)).toBe(shown)
  })
})

describe('PLAIN_HEADERS', () => {
  it('names only lower-cased headers that the checks keep as they are: no credential, cookie or URL among them', () => {
    const special = ['cookie', 'set-cookie', 'authorization', 'proxy-authorization', 'referer', 'location']
    for (const name of PLAIN_HEADERS) {
      expect(name).toBe(name.toLowerCase())
      expect(isCredentialName(name), name).toBe(false)
      expect([...special, 'content-location']).not.toContain(name)
    }
  })

  it('keeps their values as they are, and finds no credential in them', () => {
    for (const name of PLAIN_HEADERS) {
      expect(shownHeader(name, 'Bearer sk_live_51HxQz9abcd')).toBe('Bearer sk_live_51HxQz9abcd')
      expect(credentialsOf(name, 'sk_live_51HxQz9abcd')).toEqual([])
    }
  })
})

describe('credentialsOf', () => {
  it.each([
    ['authorization', 'Bearer sk_live_51HxQz9abcd', ['sk_live_51HxQz9abcd']],
    ['authorization', 'Token tok_a1b2 tok_c3d4', ['tok_a1b2 tok_c3d4', 'tok_a1b2', 'tok_c3d4']],
    ['authorization', 'Basic dXNlcjpodW50ZXIy', ['dXNlcjpodW50ZXIy']],
    ['authorization', 'sk_live_51HxQz9abcd', ['sk_live_51HxQz9abcd']],
    ['authorization', 'Bearer', []],
    ['proxy-authorization', 'Bearer sk_live_51HxQz9abcd', ['sk_live_51HxQz9abcd']],
    ['cookie', 'theme=dark; sid=8f14e45fceea167a5a36', ['dark', '8f14e45fceea167a5a36']],
    [
      'set-cookie',
      'sid=8f14e45fceea167a5a36; Path=/, csrf=0c9d8e7f6a5b4c3d2e1f',
      ['8f14e45fceea167a5a36', '0c9d8e7f6a5b4c3d2e1f'],
    ],
    ['X-JWT-Assertion', ' eyJhbGciOiJIUzI1NiJ9.e30.abcd ', ['eyJhbGciOiJIUzI1NiJ9.e30.abcd']],
    ['referer', 'https://app.test/?token=tok_0123456789wxyz', []],
    ['www-authenticate', 'Bearer realm="x"', []],
    ['content-type', 'application/json', []],
  ])('%s: %s carries %o', (name, value, credentials) => {
    expect(credentialsOf(name, value)).toEqual(credentials)
  })
})

describe('isCredentialName', () => {
  it.each([
    ...['access_token', 'api_key', 'key', 'token', 'password', 'client_secret', 'sig', 'signature'],
    ...['X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token', 'apiKey', 'accessToken', 'ACCESS_TOKEN'],
    ...['pass', 'user.pass', 'pwd', 'passphrase', 'sig2', 'session_id', 'auth', 'x-api-key', 'set-cookie'],
    ...['jwt', 'X-JWT-Assertion', 'bearer', 'assertion', 'client_assertion', 'passcode', 'SAMLResponse'],
    ...['_csrf', 'X-XSRF-TOKEN', 'otp', 'sid', 'pin', 'x-otp'],
  ])('%s names a credential', (name) => {
    expect(isCredentialName(name)).toBe(true)
  })

  it.each([
    ...['status', 'phone', 'limit', 'cursor', 'since', 'urgency', 'method', 'path'],
    ...['signal', 'design', 'passenger', 'compass', 'bypass', 'www-authenticate', 'Proxy-Authenticate'],
    ...['content-type', 'x-request-id', 'referer', ''],
    ...['hotpink', 'inside', 'shipping', 'spinner', 'topic', 'consider', 'option'],
  ])('%o names none', (name) => {
    expect(isCredentialName(name)).toBe(false)
  })
})

describe('shownParameter', () => {
  it.each([
    ['access_token', 'sk_live_51HxQz9abcd', '…abcd'],
    ['key', 'sk_sandbox_all', 'sk_sandbox_all'],
    ['password', 'hunter2', '…'],
    ['token', ADMIN, '(admin token)'],
    ['token', '', ''],
    ['cursor', 'eyJpZCI6ImNhbGxfMDEyMzQ1Njc4OSJ9', 'eyJpZCI6ImNhbGxfMDEyMzQ1Njc4OSJ9'],
    ['phone', '+14155550123', '+14155550123'],
  ])('%s=%s shows as %o', (name, value, shown) => {
    expect(shownParameter(name, value, ADMIN)).toBe(shown)
  })
})

describe('shownUrl', () => {
  it.each([
    [
      "a credential among the API's own parameters",
      '/v1/calls?access_token=sk_live_51HxQz9abcd&status=completed&limit=2',
      '/v1/calls?access_token=…abcd&status=completed&limit=2',
    ],
    ['no query', '/v1/calls', '/v1/calls'],
    ['an empty query', '/v1/calls?', '/v1/calls?'],
    [
      'a cursor, whole',
      '/v1/calls?cursor=eyJpZCI6ImNhbGxfMDEyMzQ1Njc4OSJ9',
      '/v1/calls?cursor=eyJpZCI6ImNhbGxfMDEyMzQ1Njc4OSJ9',
    ],
    [
      'the other parameters byte for byte',
      '/v1/calls?phone=%2B14155550123&&x=a+b&api_key=sk_live_51HxQz9abcd',
      '/v1/calls?phone=%2B14155550123&&x=a+b&api_key=…abcd',
    ],
    [
      'a repeated credential, each',
      '/v1/me?key=sk_live_51HxQz9abcd&key=sk_team_0000wxyz',
      '/v1/me?key=…abcd&key=…wxyz',
    ],
    [
      'a name and a value as encoded: decoded to judge, its last 4 encoded again',
      '/v1/me?access%5Ftoken=sk%5Flive%5F51HxQz9ab%26%3D%20',
      '/v1/me?access%5Ftoken=…b%26%3D%20',
    ],
    ['a value seen decoded, + as a space', '/v1/me?password=correct+horse+battery', '/v1/me?password=…tery'],
    ['the admin token, never', `/v1/me?token=${ADMIN}`, '/v1/me?token=(admin%20token)'],
    ['a built-in key, whole', '/v1/me?api_key=sk_sandbox_all', '/v1/me?api_key=sk_sandbox_all'],
    ['a name alone', '/v1/me?token&sig=', '/v1/me?token&sig='],
    ['a bad escape, as the URL parser reads it', '/v1/me?secret=%zz0123456789', '/v1/me?secret=…6789'],
    [
      'a whole URL, its fragment as its query',
      'https://app.test/cb?sig=0123456789abcdef#sig=frag',
      'https://app.test/cb?sig=…cdef#sig=…',
    ],
    [
      "an implicit grant's fragment",
      'http://app.test/cb?x=1#access_token=sk_live_51HxQz9abcd&expires_in=3600&state=s1',
      'http://app.test/cb?x=1#access_token=…abcd&expires_in=3600&state=s1',
    ],
    ['a fragment alone', '/cb#id_token=eyJhbGciOiJIUzI1NiJ9.e30.wxyz', '/cb#id_token=…wxyz'],
    ['a fragment that is a place, as it is', '/docs#section-2', '/docs#section-2'],
    ['a ? in the fragment, not the query', '/app#/inbox?token=tok_0123456789wxyz', '/app#/inbox?token=…wxyz'],
    ['a password in the user information', 'http://u:hunter2secret-long@h.test/x', 'http://u:…long@h.test/x'],
    ['a token as the user alone', '//ghp_0123456789abcdwxyz@h.test/x?y=1', '//…wxyz@h.test/x?y=1'],
    ['an @ in the path, not user information', '/v1/contacts?email=a@b.test', '/v1/contacts?email=a@b.test'],
  ])('shows %s', (_, url, shown) => {
    expect(shownUrl(url, ADMIN)).toBe(shown)
  })
})

describe('withUserInfoShown', () => {
  it.each([
    ['redis://:hunter2pass-long@127.0.0.1:6379', 'redis://:…long@127.0.0.1:6379'],
    ['--store redis://user:hunter2pass-long@a:1,b:2/3: no cluster', '--store redis://user:…long@a:1,b:2/3: no cluster'],
    ['two: mysql://u:short@h/db and rediss://:another-secret-xyz9@h', 'two: mysql://u:…@h/db and rediss://:…xyz9@h'],
    ['no URL at all, an @ alone: a@b', 'no URL at all, an @ alone: a@b'],
    // A URL's user information runs to its last @, as URL parsers read it: a password may hold an @ unencoded.
    ['got redis://u:pass@hunter2pass-wxyz@h:1/0.', 'got redis://u:…wxyz@h:1/0.'],
    ['got http://token@hunter2pass-wxyz@h.test/', 'got http://…wxyz@h.test/'],
  ])('shows %j as %j, and the same again', (text, shown) => {
    expect(withUserInfoShown(text)).toBe(shown)
    expect(withUserInfoShown(shown)).toBe(shown)
  })
})

describe('withUrlsShown', () => {
  it.each([
    ['got http://h.test/?token=abc.', [], 'got http://h.test/?….'],
    [
      "argument 'http://u:hunter2pass-long@h.test/p?a=1#b' is invalid",
      [],
      "argument 'http://u:…long@h.test/p?…' is invalid",
    ],
    ['(see https://h.test/#frag), then', [], '(see https://h.test/#…), then'],
    ['two: redis://h:1/0?x=1 and file:///a?b', [], 'two: redis://h:1/0?… and file:///a?…'],
    ['no query: http://h.test/path.', [], 'no query: http://h.test/path.'],
    ['"x y?token=abc" of rediss://x y?token=abc', ['rediss://x y?token=abc'], '"x y?…" of rediss://x y?…'],
    ['--store=redis://h?token=abc', ['--store=redis://h?token=abc'], '--store=redis://h?…'],
    ['a ? alone, no URL: what?', ['http://h.test/?'], 'a ? alone, no URL: what?'],
    ['got 127.0.0.1:4010/?token=abc.', ['127.0.0.1:4010/?token=abc'], 'got 127.0.0.1:4010/?….'],
    // A password given that no URL pattern reads whole: with a space, or a ? or # that a parser would take for a query.
    [
      "argument 'http://u:pa ss-hunter2pass@h.test/' is invalid",
      ['http://u:pa ss-hunter2pass@h.test/'],
      "argument 'http://u:…pass@h.test/' is invalid",
    ],
    ['got redis://:hunter2?pass-wxyz@h:1/0.', ['redis://:hunter2?pass-wxyz@h:1/0'], 'got redis://:…wxyz@h:1/0.'],
    ['got redis://:hunter2#pass@h:1/0?db=1.', ['redis://:hunter2#pass@h:1/0?db=1'], 'got redis://:…pass@h:1/0?….'],
    ['got https://h.test?to=a@b.test.', ['https://h.test?to=a@b.test'], 'got https://h.test?….'],
  ])('shows %j as it should', (text, given, shown) => {
    expect(withUrlsShown(text, given)).toBe(shown)
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
