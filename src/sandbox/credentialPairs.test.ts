import { describe, expect, it } from 'vitest'
import { credentialPairs, isCredentialName } from './credentials.js'

describe('credentialPairs', () => {
  it('finds what URLSearchParams finds named like a credential, decoded the same', () => {
    const queries = [
      '',
      'limit=2',
      'limit=2&api_key=sk_live_1234&limit=3',
      '&&access_token=a%20b+c&&',
      'api%5Fkey=x%3D1&api+key=y&API_KEY=z',
      'token&token=&=token&token==a=b',
      'pass%zzword=1&%E2%82%ACtoken=2&x=api_key',
      'limit=1&limits&limit&key=1&keys=2&key&key=3&ke=4&k=5&token=6&token=7',
      `${Array(7_000).fill('limit=2').join('&')}&secret=s3cr3t-value`,
      Array.from({ length: 300 }, (_, i) => `a${i}=1&session${i}=v${i}`).join('&'),
    ]
    for (const query of queries) {
      const expected = [...new URLSearchParams(query)].filter(([name]) => isCredentialName(name))
      expect([...credentialPairs(query)], query.slice(0, 60)).toEqual(expected)
    }
    expect([...credentialPairs('api%5Fkey=x%3D1&api+key=y')]).toEqual([
      ['api_key', 'x=1'],
      ['api key', 'y'],
    ])
  })
})
