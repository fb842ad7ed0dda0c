import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { stripVTControlCharacters } from 'node:util'

/**
 * Vite's dev server for a project (`npm run dev`), on 127.0.0.1 and a free port, until it says where it listens.
 * `env` is added to this process's; a value left undefined unsets that variable.
 *
 * @example
 * const { url, stop } = await startDevServer('examples/calls-inbox', {}) // url: 'http://127.0.0.1:41234/'
 */
export async function startDevServer(
  folder: string,
  env: Record<string, string | undefined>,
): Promise<{ url: string; stop: () => Promise<void> }> {
  // The project's own vite, run by the `node` its commands use (Node 24 for the copy on msw 3), so one process to stop.
  const child = spawn(
    'node',
    [resolve(folder, 'node_modules/vite/bin/vite.js'), '--host', '127.0.0.1', '--port', '0', '--strictPort'],
    { cwd: folder, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((done) => child.on('exit', done))
    child.kill('SIGTERM')
    await exited
  }
  try {
    const url = await new Promise<string>((listening, failed) => {
      let output = ''
      const read = (chunk: Buffer) => {
        output += chunk
        // Vite colours its banner on a terminal, and wherever CI is set (picocolors), the port in bold: read without.
        const match = /Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/.exec(stripVTControlCharacters(output))
        if (match) listening(match[1]!)
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
      child.on('exit', (code) => failed(new Error(`Vite's dev server exited (${code}) before listening:\n${output}`)))
      setTimeout(() => failed(new Error(`Vite's dev server did not listen within 45 s:\n${output}`)), 45_000).unref()
    })
    return { url, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
