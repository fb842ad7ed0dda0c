import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'

/** What a copy leaves out: the example's install and its builds. */
const LEFT_OUT = /^(node_modules|dist.*|storybook-static)$/

/**
 * A copy of the example in a temp folder, set to run on msw 3 but not yet
 * installed: its msw the given version (scripts/msw3.mjs's, which installed
 * it before, so that npm finds it in its cache), its `call-sandbox` this repository by
 * an absolute path (the tracked `file:../..` points nowhere from a temp
 * folder). Its lock keeps every other version the example has. The folder's
 * name starts with `call-sandbox-`, which test/support/leftovers.ts checks.
 *
 * @example
 * const folder = await copyExampleForMsw3('examples/calls-inbox', '/work/main', '3.0.5')
 */
export async function copyExampleForMsw3(example: string, root: string, mswVersion: string): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'call-sandbox-e2e-msw3-'))
  try {
    await cp(example, folder, {
      recursive: true,
      filter: (source) => !LEFT_OUT.test(relative(example, source).split(sep)[0]!),
    })
    const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'))
    manifest.devDependencies = { ...manifest.devDependencies, 'call-sandbox': `file:${root}`, msw: mswVersion }
    await writeFile(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    // The lock's link to ../.. would resolve from the temp folder: npm links the new path in its place.
    const lock = JSON.parse(await readFile(join(folder, 'package-lock.json'), 'utf8'))
    delete lock.packages['../..']
    delete lock.packages['node_modules/call-sandbox']
    lock.packages[''].devDependencies = manifest.devDependencies
    await writeFile(join(folder, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`)
  } catch (error) {
    await rm(folder, { recursive: true, force: true })
    throw error
  }
  return folder
}
