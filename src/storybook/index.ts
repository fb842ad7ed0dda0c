/**
 * call-sandbox for Storybook (msw-storybook-addon): story parameters for
 * each scenario and each state a UI must show, and the default world as
 * typed fixtures. Environment-agnostic: the handlers run in a service worker
 * or under `setupServer` alike.
 */
export { sandboxParameters, type SandboxParameters } from './sandboxParameters.js'
export { StoryHandler, type StoryOptions, type StoryState } from './StoryHandler.js'
export { fixtures, type Fixtures } from './fixtures.js'
export { STORY_NOW } from './storySandbox.js'
