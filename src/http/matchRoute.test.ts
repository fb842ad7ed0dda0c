import { describe, expect, it } from 'vitest'
import { ApiError } from '../schemas/ApiError.js'
import { type Matchable, matchRoute, methodsAt } from './matchRoute.js'

const ROUTES: Matchable[] = [
  { method: 'GET', path: '/v1/calls' },
  { method: 'GET', path: '/v1/calls/:call_id' },
  { method: 'GET', path: '/v1/contacts' },
  { method: 'POST', path: '/v1/contacts' },
  { method: 'GET', path: '/v1/contacts/:contact_id' },
]

/** What `matchRoute` threw, or a failure when it returned or threw anything but an ApiError. */
function refusal(method: string, path: string, listed?: readonly Matchable[]): ApiError {
  let matched: unknown
  try {
    matched = matchRoute(ROUTES, method, path, listed)
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error(`${method} ${path} matched ${JSON.stringify(matched)}`)
}

describe('matchRoute', () => {
  it.each([
    ['GET', '/v1/calls', '/v1/calls', {}],
    ['GET', '/v1/calls/abc', '/v1/calls/:call_id', { call_id: 'abc' }],
    ['POST', '/v1/contacts', '/v1/contacts', {}],
    ['GET', '/v1/contacts/a%20b', '/v1/contacts/:contact_id', { contact_id: 'a b' }],
    // A malformed escape is no reason to throw: the value stays as sent, for the parameter's check to refuse.
    ['GET', '/v1/calls/%ZZ', '/v1/calls/:call_id', { call_id: '%ZZ' }],
  ])('%s %s matches %s with %o', (method, path, pattern, pathValues) => {
    const match = matchRoute(ROUTES, method, path)
    expect(match.route.path).toBe(pattern)
    expect(match.route.method).toBe(method)
    expect(match.pathValues).toEqual(pathValues)
  })

  it.each([
    ['a path no route has', '/v2/calls'],
    ['a trailing slash', '/v1/calls/'],
    ['an empty parameter', '/v1/calls//'],
    ['one segment too many', '/v1/calls/abc/messages'],
    ['a different case', '/V1/calls'],
  ])('answers 404 not_found for %s (%s), listing the endpoints', (_what, path) => {
    const error = refusal('GET', path)
    expect(error.status).toBe(404)
    expect(error.code).toBe('not_found')
    expect(error.message).toContain('The endpoints are: GET /v1/calls, GET /v1/calls/:call_id, GET /v1/contacts')
  })

  it('suggests the nearest endpoint, its parameter filled from the path sent', () => {
    const error = refusal('GET', '/v1/cals/abc')
    expect(error.message).toContain('Did you mean /v1/calls/abc?')
    expect(error.init.details).toEqual({ did_you_mean: '/v1/calls/abc' })
  })

  it('suggests nothing when no endpoint is near', () => {
    const error = refusal('GET', '/something/else/entirely')
    expect(error.message).not.toContain('Did you mean')
    expect(error.init.details).toBeUndefined()
  })

  it('lists what it is told to list in a 404: the endpoints of other planes under the same prefix too', () => {
    const error = refusal('GET', '/v2', [{ method: 'GET', path: '/elsewhere' }])
    expect(error.message).toContain('The endpoints are: GET /elsewhere.')
  })

  it.each([
    ['DELETE', '/v1/contacts', 'GET, POST'],
    ['POST', '/v1/calls', 'GET'],
    ['PUT', '/v1/calls/abc', 'GET'],
  ])('answers %s %s with 405 method_not_allowed, Allow: %s', (method, path, allowed) => {
    const error = refusal(method, path)
    expect(error.status).toBe(405)
    expect(error.code).toBe('method_not_allowed')
    expect(error.init.headers).toEqual({ Allow: allowed })
    expect(error.message).toBe(`${path} does not take ${method}; it takes ${allowed}.`)
  })

  it('checks the path before the method: a path no route has is a 404 whatever the method', () => {
    expect(refusal('DELETE', '/v2/calls').status).toBe(404)
  })

  it('keeps a route found for the same method and path, its values frozen, and refuses anew what it refused', () => {
    const routes: Matchable[] = [...ROUTES]
    const first = matchRoute(routes, 'GET', '/v1/calls/kept')
    expect(matchRoute(routes, 'GET', '/v1/calls/kept')).toBe(first)
    expect(Object.isFrozen(first.pathValues)).toBe(true)
    // Another method at the same path is not the route kept for GET.
    expect(() => matchRoute(routes, 'POST', '/v1/calls/kept')).toThrow(ApiError)
    expect(() => matchRoute(routes, 'POST', '/v1/calls/kept')).toThrow(/does not take POST/)
    // A list of routes of its own: a route kept for one list is not another's.
    const others: Matchable[] = [{ method: 'GET', path: '/v1/calls/:id' }]
    expect(matchRoute(others, 'GET', '/v1/calls/kept').route).toBe(others[0])
  })

  it('finds the route for a path longer than any kept, each time', () => {
    const long = `/v1/calls/${'a'.repeat(5_000)}`
    const first = matchRoute(ROUTES, 'GET', long)
    expect(first.pathValues).toEqual({ call_id: 'a'.repeat(5_000) })
    expect(matchRoute(ROUTES, 'GET', long)).not.toBe(first)
  })

  it('keeps a bounded number of paths, the least recently used going first', () => {
    const routes: Matchable[] = [...ROUTES]
    const first = matchRoute(routes, 'GET', '/v1/calls/0')
    for (let i = 1; i <= 1_024; i++) matchRoute(routes, 'GET', `/v1/calls/${i}`)
    const again = matchRoute(routes, 'GET', '/v1/calls/0')
    expect(again).not.toBe(first)
    expect(again).toEqual(first)
    expect(matchRoute(routes, 'GET', '/v1/calls/1024')).toBe(matchRoute(routes, 'GET', '/v1/calls/1024'))
  })
})

describe('methodsAt', () => {
  it.each([
    ['/v1/contacts', ['GET', 'POST']],
    ['/v1/calls/abc', ['GET']],
    ['/v2/calls', []],
  ])('%s takes %o', (path, methods) => {
    expect(methodsAt(ROUTES, path)).toEqual(methods)
  })
})
