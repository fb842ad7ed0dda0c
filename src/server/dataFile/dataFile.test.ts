import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SeedIdentity } from '../../schemas/snapshot.js'
import { DATA_FILE_FORMAT, DATA_FILE_VERSION, DataFileError, emptyHeader } from './format.js'
import { FileStore } from './FileStore.js'
import { lockPath, releaseLock, takeLock } from './lock.js'
import { readDataFile } from './readDataFile.js'

const WORLD: SeedIdentity = {
  seed: 1,
  seeded_at: '2026-11-20T12:00:00.000Z',
  clock: 'fixed',
  scenario: 'default',
  organizations: 'org fixtures',
}
const CONTACT_WRITE = { write: 1, changes: { inserted: [], changed: [] }, clock_offset_ms: 0 }

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function newFile(lines?: unknown[], tail = ''): string {
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-datafile-'))
  folders.push(folder)
  const path = join(folder, 'sandbox.log')
  if (lines) writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join('') + tail)
  return path
}

describe('the format', () => {
  it('writes an empty header of a world: no writes, no sessions, the current version', () => {
    expect(emptyHeader(WORLD)).toEqual({
      format: DATA_FILE_FORMAT,
      version: DATA_FILE_VERSION,
      ...WORLD,
      clock_offset_ms: 0,
      changes: { writes: 0, inserted: [], changed: [] },
      sessions: [],
    })
  })
})

describe('readDataFile, the torn-line reader', () => {
  it('reads no file, and an empty one, as none', () => {
    const path = newFile()
    expect(readDataFile(path)).toBeUndefined()
    writeFileSync(path, '')
    expect(readDataFile(path)).toBeUndefined()
  })

  it('puts each line after the header in its session, and ends where the last whole line ends', () => {
    const created = { created_at: '2026-11-20T12:00:00.000Z', options: null }
    const path = newFile([
      emptyHeader(WORLD),
      CONTACT_WRITE,
      { session: 'alice', created },
      { session: 'alice', clock_offset_ms: 60_000 },
    ])
    const read = readDataFile(path)!
    expect(read.wholeBytes).toBe(read.bytes)
    expect(read.content.logged).toBe(3)
    expect(read.content.world.entries).toEqual([CONTACT_WRITE])
    expect(read.content.sessions).toEqual([
      { name: 'alice', ...created, snapshot: null, entries: [{ clock_offset_ms: 60_000 }] },
    ])
    expect(read.content.seed).toEqual(WORLD)
  })

  it('drops a last line a crash cut short: its bytes are not whole', () => {
    const path = newFile([emptyHeader(WORLD), CONTACT_WRITE], '{"clock_offset_ms":6')
    const read = readDataFile(path)!
    expect(read.bytes - read.wholeBytes).toBe('{"clock_offset_ms":6'.length)
    expect(read.content.world.entries).toEqual([CONTACT_WRITE])
  })

  it('forgets what came before a reset, and a session once it ended', () => {
    const created = { created_at: '2026-11-20T12:00:00.000Z', options: null }
    const path = newFile([
      emptyHeader(WORLD),
      CONTACT_WRITE,
      { reset: { ...WORLD, scenario: 'busy' } },
      { session: 'bob', created },
      { session: 'bob', ended: true },
    ])
    const { content } = readDataFile(path)!
    expect(content.world.entries).toEqual([])
    expect(content.world.snapshot).toMatchObject({ scenario: 'busy', changes: { writes: 0 } })
    expect(content.seed.scenario).toBe('busy')
    expect(content.sessions).toEqual([])
  })

  it.each([
    ['a line before the last that is no entry', [emptyHeader(WORLD), { nope: 1 }, CONTACT_WRITE], /line 2 is no entry/],
    ['an entry of a session never made', [emptyHeader(WORLD), { session: 'ghost', ...CONTACT_WRITE }], /never made/],
    ['JSON that is no data file', [{ calls: [] }], /is not a call-sandbox data file/],
    ['a recording', [{ format: 'call-sandbox recording' }], /is a recording/],
  ])('refuses %s with a DataFileError', (_name, lines, message) => {
    const path = newFile(lines)
    expect(() => readDataFile(path)).toThrow(DataFileError)
    expect(() => readDataFile(path)).toThrow(message)
  })

  it('reads a file of version 3 (one document over many lines) as a header alone, to compact', () => {
    const path = newFile()
    writeFileSync(path, JSON.stringify({ ...emptyHeader(WORLD), version: 3 }, null, 2))
    const { content } = readDataFile(path)!
    expect(content.compact).toBe(true)
    expect(content.logged).toBe(0)
  })
})

describe('the lock beside the file', () => {
  it('is taken once: a live process holding it is named, and it is free again once released', () => {
    const path = newFile()
    takeLock(path)
    expect(JSON.parse(readFileSync(lockPath(path), 'utf8'))).toMatchObject({ pid: process.pid })
    expect(() => takeLock(path)).toThrow(new RegExp(`in use by another call-sandbox \\(process ${process.pid}\\)`))
    releaseLock(path)
    takeLock(path)
    releaseLock(path)
  })

  it('is taken over from a process that is gone', () => {
    const path = newFile()
    // No process has a pid this high: Linux's pid_max is at most 2^22.
    writeFileSync(lockPath(path), JSON.stringify({ pid: 2 ** 30, host: hostname() }))
    takeLock(path)
    expect(JSON.parse(readFileSync(lockPath(path), 'utf8')).pid).toBe(process.pid)
    releaseLock(path)
  })
})

describe('FileStore', () => {
  it('writes a new file as the header of the world it is first read for', async () => {
    const path = newFile()
    const store = await FileStore.open(path)
    try {
      expect(store.seededFrom).toBeUndefined()
      expect(await store.read(WORLD)).toEqual({ world: { snapshot: null, entries: [] }, sessions: [], logged: 0 })
      await store.log('default').append(CONTACT_WRITE)
    } finally {
      await store.close()
    }
    expect(readDataFile(path)!.content.world.entries).toEqual([CONTACT_WRITE])
  })

  it('refuses to be read for another world, naming what differs, and keeps the file as it was', async () => {
    const path = newFile([emptyHeader(WORLD)])
    const before = readFileSync(path, 'utf8')
    const store = await FileStore.open(path)
    try {
      expect(store.seededFrom).toEqual(WORLD)
      await expect(store.read({ ...WORLD, seed: 2 })).rejects.toThrow(/belongs to seed 1, not 2/)
      await expect(store.read({ ...WORLD, organizations: 'others' })).rejects.toThrow(DataFileError)
    } finally {
      await store.close()
    }
    expect(readFileSync(path, 'utf8')).toBe(before)
  })
})
