import { describe, expect, it } from 'vitest'
import { resolveOptions } from '../sandbox/options.js'
import { baseUrlOf } from './baseUrl.js'

const OPTION = { name: '--url', what: "the sandbox's absolute URL", example: 'http://127.0.0.1:4010', credentials: '' }

describe('a base URL given as an option', () => {
  it.each([
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['https://api.example.com/v1//', 'https://api.example.com/v1'],
  ])('takes %j as %j', (given, base) => {
    expect(baseUrlOf(given, OPTION)).toBe(base)
  })

  it.each([
    [
      'a query',
      'http://127.0.0.1:4010/?token=s3cret-in-it',
      'must not have a query or fragment; got http://127.0.0.1:4010/?….',
    ],
    ['a fragment', 'https://h.test/#s3cret-in-it', 'must not have a query or fragment; got https://h.test/#….'],
    [
      'no http:',
      'ftp://u:s3cret-in-it-wxyz@h.test/?s3cret-in-it',
      'must be an http: or https: URL; got ftp://u:…wxyz@h.test/?….',
    ],
    ['no URL', 'sandbox local/?token=s3cret-in-it', 'such as http://127.0.0.1:4010; got sandbox local/?….'],
  ])('refuses one with %s, quoting it without its password, query or fragment', (_, given, message) => {
    expect(() => baseUrlOf(given, OPTION)).toThrow(message)
  })

  it.each([
    [
      'https://api.example.com/?token=s3cret-in-it',
      'baseUrl must not have a query or fragment; got https://api.example.com/?….',
    ],
    [
      'api.example.com?token=s3cret-in-it',
      'baseUrl must be an absolute URL such as https://api.example.com; got api.example.com?….',
    ],
  ])("refuses the sandbox's baseUrl %j, quoting it so too", (given, message) => {
    expect(() => resolveOptions({ baseUrl: given })).toThrow(message)
  })
})
