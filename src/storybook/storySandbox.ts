import { LruMap } from '../data/LruMap.js'
import { createSandbox, type SandboxWithHandlers } from '../handlers/createSandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { Scope } from '../schemas/index.js'
import { defaultOrganizations } from '../seed/fixtures.js'

/**
 * The instant stories and fixtures are seeded at, with the clock standing
 * still there: a story shows the same records on every run and machine.
 */
export const STORY_NOW = '2026-11-20T12:00:00Z'

/** Past this many kinds of story, the least recently shown one's world goes: shown again, it is seeded anew. */
export const SANDBOXES_KEPT = 32
const sandboxes = new LruMap<string, SandboxWithHandlers>(SANDBOXES_KEPT)

/**
 * The sandbox of a story's options, made at the first request and shared by
 * every story with the same options, so a Storybook seeds each world once.
 * With `missingScope`, every key of every organization lacks that scope
 * (`'every'`: all scopes), so the API answers its real 403 where the scope
 * is needed and works everywhere else.
 *
 * @example
 * const sandbox = storySandbox({ scenario: 'empty' })
 * const withoutLeads = storySandbox({}, 'leads:read')
 */
export function storySandbox(options: SandboxOptions = {}, missingScope?: Scope | 'every'): SandboxWithHandlers {
  // A fixed clock at STORY_NOW, unless the story says otherwise.
  const resolved: SandboxOptions = { now: STORY_NOW, ...options }
  const id = JSON.stringify([resolved, missingScope ?? null])
  let sandbox = sandboxes.get(id)
  if (!sandbox) {
    sandbox = createSandbox(
      missingScope === undefined
        ? resolved
        : { ...resolved, organizations: withoutScope(resolved.organizations ?? defaultOrganizations, missingScope) },
    )
    sandboxes.set(id, sandbox)
  }
  return sandbox
}

function withoutScope(
  organizations: NonNullable<SandboxOptions['organizations']>,
  missing: Scope | 'every',
): NonNullable<SandboxOptions['organizations']> {
  return organizations.map((organization) => ({
    ...organization,
    keys: organization.keys.map((key) => ({
      ...key,
      scopes: missing === 'every' ? [] : key.scopes.filter((scope) => scope !== missing),
    })),
  }))
}
