import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { emptyRecord } from './emptyRecord.js'

/** Names every plain object inherits, `__proto__` among them. */
const INHERITED = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']

describe('emptyRecord', () => {
  it('inherits no name: constructor, toString and __proto__ read as undefined until set', () => {
    const record = emptyRecord<string>()
    for (const name of INHERITED) {
      expect(record[name]).toBeUndefined()
      expect(name in record).toBe(false)
    }
  })

  it('keeps __proto__ and constructor as names of its own, as JSON writes them', () => {
    const record = emptyRecord<string>()
    const [constructorName, , protoName] = INHERITED as [string, string, string]
    record[protoName] = 'a'
    record[constructorName] = 'b'
    expect(Object.keys(record)).toEqual([protoName, constructorName])
    expect(JSON.stringify(record)).toBe('{"__proto__":"a","constructor":"b"}')
    expect(Object.getPrototypeOf(Object.getPrototypeOf(record))).toBeNull()
    expect(emptyRecord<string>()[protoName]).toBeUndefined()
  })

  it('shares no name between records, and its prototype cannot be given one', () => {
    const one = emptyRecord<number>()
    const name = 'x'
    one[name] = 1
    expect(emptyRecord<number>()[name]).toBeUndefined()
    expect(() => {
      ;(Object.getPrototypeOf(one) as Record<string, number>)[name] = 2
    }).toThrow(TypeError)
  })

  it('shows in Node as a record without a prototype does', () => {
    const record = emptyRecord<string>()
    const plain = Object.create(null) as Record<string, string>
    for (const each of [record, plain]) each['x-request-id'] = 'req_1'
    expect(inspect(record)).toBe(inspect(plain))
    expect(inspect({ headers: record }, { depth: 0 })).toBe(inspect({ headers: plain }, { depth: 0 }))
  })
})
