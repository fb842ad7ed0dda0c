import type { RequestHandler } from 'msw'
import { StoryHandler, type StoryOptions } from './StoryHandler.js'

/**
 * `parameters.msw` of a story, for msw-storybook-addon: named groups, tried
 * in order, so a story can replace `overrides` alone and keep the sandbox.
 */
export interface SandboxParameters {
  msw: { handlers: { overrides: RequestHandler[]; sandbox: RequestHandler[] } }
}

/**
 * Story parameters that put the sandbox behind the story: a scenario's world
 * (`default`, `empty`, `busy`, `degraded`), or a single state of every API
 * request (`loading`, `unauthorized`, `forbidden`, `rate-limited`,
 * `server-error`), with your own handlers in `overrides`, tried first.
 * Seeded at {@link STORY_NOW} with the clock standing still, unless `now` or
 * `clock` say otherwise; any other sandbox option goes too.
 *
 * @example
 * export default { component: CallsInbox, parameters: sandboxParameters() } satisfies Meta
 * export const Empty = { parameters: sandboxParameters({ scenario: 'empty' }) }
 * export const Loading = { parameters: sandboxParameters({ state: 'loading' }) }
 * export const NoLeadsScope = { parameters: sandboxParameters({ state: 'forbidden', missingScope: 'leads:read' }) }
 * export const OneCall = {
 *   parameters: sandboxParameters({ overrides: [http.get('/v1/calls', () => HttpResponse.json(onePage))] }),
 * }
 */
export function sandboxParameters({
  overrides = [],
  ...options
}: StoryOptions & { overrides?: RequestHandler[] } = {}): SandboxParameters {
  return { msw: { handlers: { overrides, sandbox: [new StoryHandler(options)] } } }
}
