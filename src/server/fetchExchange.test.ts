import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { fetchRequestOf } from './fetchExchange.js'

/** A Node request as the parser leaves it: its method, target and headers as sent, no body. */
function sent(method: string, target: string, rawHeaders: string[]): { node: IncomingMessage; url: URL } {
  const node = { method, url: target, rawHeaders } as unknown as IncomingMessage
  return { node, url: new URL(target, 'http://localhost:4010') }
}

describe('fetchRequestOf', () => {
  it.each([
    ['GET', '/v1/calls?limit=50'],
    ['HEAD', '/v1/calls'],
    ['GET', '/v1/calls/../me?q=a%20b&q=c+d#part'],
    ['GET', '/sessions/%C3%A9t%C3%A9/v1/calls?status=in-progress&x=é'],
  ])('reads a %s of %s as a fetch Request made of it would be read', (method, target) => {
    const rawHeaders = [
      'Host',
      'localhost:4010',
      'Authorization',
      'Bearer a',
      'authorization',
      'Bearer b',
      'X-Pad',
      ' x ',
    ]
    const { node, url } = sent(method, target, rawHeaders)
    const request = fetchRequestOf(node, url)
    const headers: [string, string][] = []
    for (let i = 0; i < rawHeaders.length; i += 2) headers.push([rawHeaders[i]!, rawHeaders[i + 1]!])
    const asFetch = new Request(url, { method, headers })
    expect(request.url).toBe(asFetch.url)
    expect(request.method).toBe(asFetch.method)
    expect([...request.headers]).toEqual([...asFetch.headers])
    expect(request.body).toBeNull()
    expect(request.bodyUsed).toBe(false)
  })

  it('makes a fetch Request, its body still to read, of a request that has one', async () => {
    const { Readable } = await import('node:stream')
    const node = Object.assign(Readable.from([Buffer.from('{"a":1}')]), {
      method: 'POST',
      url: '/v1/contacts',
      rawHeaders: ['Host', 'localhost', 'Content-Type', 'application/json'],
    }) as unknown as IncomingMessage
    const request = fetchRequestOf(node, new URL('http://localhost/v1/contacts'))
    expect(request).toBeInstanceOf(Request)
    expect(await (request as Request).text()).toBe('{"a":1}')
  })
})
