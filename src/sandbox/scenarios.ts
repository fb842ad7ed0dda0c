import { z } from 'zod'
import scenariosJson from '../../fixtures/scenarios.json' with { type: 'json' }
import { ScenarioName } from '../schemas/index.js'
import { OrganizationFixture } from '../seed/fixtures.js'

const Sizes = OrganizationFixture.pick({ calls: true, api_contacts: true }).partial()

const Scenario = z.strictObject({
  description: z.string(),
  /** Sizes given to the first organization. */
  first_organization: Sizes.optional(),
  /** Sizes given to every organization. */
  every_organization: Sizes.optional(),
  /** Latency of every API answer, like `--latency`. */
  latency: z.string().optional(),
  /** Fraction of API answers that are a 500 or 503, like `--error-rate`. */
  error_rate: z.number().min(0).max(1).optional(),
})
export type Scenario = z.infer<typeof Scenario>

export const SCENARIO_NAMES = ScenarioName.options
export type { ScenarioName }

/**
 * The named worlds of `fixtures/scenarios.json`: data, not code. Storybook
 * presets, `--scenario` and `POST /_sandbox/reset` all pick from these.
 *
 * @example
 * scenarios.busy.description
 */
export const scenarios: Readonly<Record<ScenarioName, Scenario>> = z.record(ScenarioName, Scenario).parse(scenariosJson)

/**
 * The scenario of a name, or a TypeError that lists the names.
 *
 * @example
 * scenarioNamed('empty').every_organization // { calls: 0, api_contacts: 0 }
 */
export function scenarioNamed(name: string): Scenario {
  if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
    throw new TypeError(`scenario must be one of ${SCENARIO_NAMES.join(', ')}; got ${JSON.stringify(name)}.`)
  }
  return scenarios[name as ScenarioName]
}

/**
 * Organizations with a scenario's sizes applied.
 *
 * @example
 * sizedFor(scenarios.empty, defaultOrganizations).map((o) => o.calls) // [0, 0]
 */
export function sizedFor(scenario: Scenario, organizations: readonly OrganizationFixture[]): OrganizationFixture[] {
  return organizations.map((organization, i) => ({
    ...organization,
    ...scenario.every_organization,
    ...(i === 0 && scenario.first_organization),
  }))
}
