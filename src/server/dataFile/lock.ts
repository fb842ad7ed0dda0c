import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { DataFileError } from './format.js'

/*
 * The lock beside a data file (`FILE.lock`): it refuses a second process on
 * the same file, which would lose the first one's writes. A lock a process
 * that is gone left behind is taken over.
 */

export function lockPath(path: string): string {
  return `${path}.lock`
}

/** Takes the lock beside the file, or says which live process holds it; a lock a dead process left is taken over. */
export function takeLock(path: string): void {
  const lock = lockPath(path)
  const mine = JSON.stringify({ pid: process.pid, host: hostname() })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = openSync(lock, 'wx')
      writeSync(file, mine)
      closeSync(file)
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DataFileError(`cannot lock the data file ${path} (${lock}): ${(error as Error).message}`)
      }
    }
    const holder = readLock(lock)
    if (holder && holder.host === hostname() && isAlive(holder.pid)) {
      throw new DataFileError(
        `${path} is in use by another call-sandbox (process ${holder.pid}): two servers on one data file would lose each other's writes. Stop it, name another file with --data, or share a Redis store (--store).`,
      )
    }
    // Left by a process that is gone (or on another host that shares the folder: see the docs).
    rmSync(lock, { force: true })
  }
  throw new DataFileError(`cannot lock the data file ${path}: ${lock} keeps coming back.`)
}

function readLock(lock: string): { pid: number; host: string } | undefined {
  try {
    const file = openSync(lock, 'r')
    const buffer = Buffer.alloc(256)
    const length = readSync(file, buffer, 0, buffer.length, 0)
    closeSync(file)
    return JSON.parse(buffer.subarray(0, length).toString('utf8'))
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export function releaseLock(path: string): void {
  rmSync(lockPath(path), { force: true })
}
