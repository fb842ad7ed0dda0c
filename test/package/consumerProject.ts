import { execFile } from 'node:child_process'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'

const ROOT = resolve(import.meta.dirname, '../..')

/** The version of a package in this repository's own install, so that a consumer's install finds it in npm's cache. */
export function devVersion(name: string): string {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
}

/** The README's code block that follows `heading`. */
export function readmeSnippet(heading: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const at = readme.indexOf(`${heading}\n`)
  if (at === -1) throw new Error(`no heading ${heading} in README.md`)
  const after = readme.slice(at)
  const match = /```\w*\n([\s\S]*?)```/.exec(after)
  if (!match) throw new Error(`no code block after ${heading} in README.md`)
  return match[1]!
}

export interface ConsumerProject {
  folder: string
  /** Runs a command in the project; its output (stdout, then stderr), or a rejection with the output when it fails. */
  run(command: string, args: string[]): Promise<string>
  /** The same, its stdout alone (npm writes warnings to stderr). */
  stdout(command: string, args: string[]): Promise<string>
  remove(): void
}

/**
 * A project of a consumer in a temp folder: the packed call-sandbox and the
 * given packages installed as a consumer would (from npm's cache when it has
 * them), install scripts not run, then the given files written. With `node`,
 * a Node binary, every command runs on that Node (it comes first on PATH).
 */
export async function consumerProject(
  tarball: string,
  packages: string[],
  files: Record<string, string>,
  manifest: object = {},
  node?: string,
): Promise<ConsumerProject> {
  const folder = mkdtempSync(join(tmpdir(), 'call-sandbox-consumer-'))
  const PATH = node ? `${dirname(node)}${delimiter}${process.env.PATH}` : process.env.PATH
  const outputs = async (command: string, args: string[]) => {
    try {
      return await promisify(execFile)(command, args, {
        cwd: folder,
        maxBuffer: 64 * 1024 * 1024,
        // Node 22.1+ keeps a compile cache (vitest turns it on): in the project, removed with it, not in <tmp>.
        env: {
          ...process.env,
          PATH,
          NO_COLOR: '1',
          FORCE_COLOR: '0',
          NODE_COMPILE_CACHE: join(folder, '.node-compile-cache'),
        },
      })
    } catch (error) {
      const failure = error as { stdout?: string; stderr?: string; message: string }
      throw new Error(
        `${command} ${args.join(' ')} failed in ${folder}:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`,
      )
    }
  }
  const run = async (command: string, args: string[]) => {
    const { stdout, stderr } = await outputs(command, args)
    return stdout + stderr
  }
  const stdout = async (command: string, args: string[]) => (await outputs(command, args)).stdout
  try {
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({ name: 'a-consumer', private: true, ...manifest }, null, 2),
    )
    await run('npm', [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      tarball,
      ...packages,
    ])
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, path)), { recursive: true })
      writeFileSync(join(folder, path), text)
    }
  } catch (error) {
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
  return { folder, run, stdout, remove: () => rmSync(folder, { recursive: true, force: true }) }
}
