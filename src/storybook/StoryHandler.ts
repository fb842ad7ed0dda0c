import { HttpHandler, HttpResponse } from 'msw'
import { answer } from '../handlers/answer.js'
import { sandboxPath } from '../handlers/dispatch.js'
import { isApiPath } from '../http/paths.js'
import type { Sandbox } from '../sandbox/Sandbox.js'
import type { SandboxOptions } from '../sandbox/options.js'
import type { FaultRuleInput, Scope } from '../schemas/index.js'
import { storySandbox } from './storySandbox.js'

/** A state of the UI a story can show without writing a handler. */
export type StoryState = 'loading' | 'unauthorized' | 'forbidden' | 'rate-limited' | 'server-error'

export interface StoryOptions extends SandboxOptions {
  /** A single state for every API request; default none: the sandbox's own answers. */
  state?: StoryState
  /** With `state: 'forbidden'`: the scope the key lacks (its real 403 where needed); default every scope. */
  missingScope?: Scope
  /**
   * Fault rules the story's world has from its first request, as `POST /_sandbox/faults` takes them: the third page
   * failing, a slow answer, a dropped connection. Set again for every showing of the story.
   */
  faults?: FaultRuleInput[]
}

/** A key no sandbox has: the API's own 401 for a revoked or mistyped key. */
const REVOKED_KEY = 'sk_sandbox_revoked'

/**
 * The one MSW handler of a story: the sandbox's answers, or a state that
 * every API request (`/v1/`) gets. Every state is the API's real answer:
 * a 401 for an unknown key, a 403 from a world whose keys lack the scope,
 * a 429 or 500 asked for with `Prefer: code=`. `loading` holds each request
 * until the handlers are reset.
 *
 * msw-storybook-addon resets the handlers before each story, and msw tells
 * each handler it lets go of: the held requests then fail as a network error
 * would, and the world goes back to its seed, so neither a pending request
 * nor a write leaks into the next story.
 *
 * @example
 * const server = setupServer(new StoryHandler({ state: 'loading' }))
 */
export class StoryHandler extends HttpHandler {
  readonly #story: StorySandbox

  constructor(options: StoryOptions = {}) {
    if (typeof (HttpHandler.prototype as unknown as { reset?: unknown }).reset !== 'function') {
      throw new Error(
        'call-sandbox/storybook needs msw 2.15 or later: it ends a story (its held requests, its writes) when msw resets the handlers, which older msw does not tell them. Upgrade msw (npm install msw@^2.15).',
      )
    }
    const story = new StorySandbox(options)
    super(
      /.+/,
      ({ request }) => story.handles(request),
      ({ request }) => story.answer(request),
    )
    this.#story = story
  }

  /**
   * @note msw 2.15 and later call this on every current handler in
   * `resetHandlers()`; msw 3 only on those the reset keeps (the initial
   * ones), and `dispose()` on the others. Public, as in msw 3: a subclass
   * may widen msw 2's `protected`, not narrow msw 3's `public`.
   */
  override reset(): void {
    super.reset()
    this.#story.end()
  }

  /**
   * @note msw 3 calls this on a handler that leaves: dropped by
   * `resetHandlers()` (a story's handlers, added with `use()`), or with
   * every handler at `server.close()` and `worker.stop()`. msw 2 never does.
   */
  dispose(): void {
    this.#story.end()
  }
}

class StorySandbox {
  readonly #options: SandboxOptions
  readonly #state: StoryState | undefined
  readonly #missingScope: Scope | 'every' | undefined
  /** Made at the first request: a story never shown seeds nothing. */
  #sandbox: Sandbox | undefined
  readonly #held = new Set<() => void>()
  readonly #faults: FaultRuleInput[]
  /** The story's fault rules set in its world: once a showing, after the reset of the last one. */
  #armed: Promise<unknown> | undefined
  #ended: Promise<void> | undefined

  constructor({ state, missingScope, faults = [], ...options }: StoryOptions) {
    this.#options = options
    this.#faults = faults
    this.#state = state
    this.#missingScope = state === 'forbidden' ? (missingScope ?? 'every') : undefined
  }

  get sandbox(): Sandbox {
    this.#sandbox ??= storySandbox(this.#options, this.#missingScope)
    return this.#sandbox
  }

  handles(request: Request): boolean {
    return sandboxPath(this.sandbox, new URL(request.url)) !== undefined
  }

  async answer(request: Request): Promise<Response | undefined> {
    const path = sandboxPath(this.sandbox, new URL(request.url))
    const api = path !== undefined && isApiPath(path)
    if (this.#faults.length > 0) {
      this.#armed ??= this.#arm()
      await this.#armed
    }
    switch (api ? this.#state : undefined) {
      case 'loading':
        await this.#hold(request)
        return HttpResponse.error()
      case 'unauthorized':
        return answer(this.sandbox, withHeader(request, 'Authorization', `Bearer ${REVOKED_KEY}`))
      case 'rate-limited':
        return answer(this.sandbox, withHeader(request, 'Prefer', 'code=429'))
      case 'server-error':
        return answer(this.sandbox, withHeader(request, 'Prefer', 'code=500'))
      default:
        // 'forbidden' too: its world's keys lack the scope, so the pipeline gives the 403 itself.
        return answer(this.sandbox, request)
    }
  }

  /** Ends held requests and puts a world that was used back to its seed. */
  end(): void {
    for (const release of this.#held) release()
    this.#held.clear()
    this.#ended = this.#sandbox?.reset()
    this.#armed = undefined
  }

  async #arm(): Promise<void> {
    await this.#ended
    for (const rule of this.#faults) await this.sandbox.faults.add(rule)
  }

  /** Waits until the handlers are reset or the request is aborted: an infinite delay that ends with its story. */
  #hold(request: Request): Promise<void> {
    return new Promise((resolve) => {
      this.#held.add(resolve)
      request.signal.addEventListener('abort', () => resolve(), { once: true })
    })
  }
}

function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers)
  headers.set(name, value)
  return new Request(request, { headers })
}
