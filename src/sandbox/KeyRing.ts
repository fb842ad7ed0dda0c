import type { Scope } from '../schemas/index.js'
import type { OrganizationFixture } from '../seed/fixtures.js'

/** A key, with its scopes and the organization it belongs to. */
export interface ApiKey {
  key: string
  scopes: readonly Scope[]
  organization: OrganizationFixture
}

/**
 * The organizations of a world and their keys. A world seeded anew (a
 * scenario swap) gets a key ring of its own, so that a key's organization
 * is always the one the world holds.
 *
 * @example
 * const keys = new KeyRing(defaultOrganizations)
 * keys.key('sk_sandbox_all')?.organization.organization_name // 'Harbor Dental Care'
 */
export class KeyRing {
  readonly #keys: ReadonlyMap<string, ApiKey>

  constructor(readonly organizations: readonly OrganizationFixture[]) {
    this.#keys = new Map(
      organizations.flatMap((organization) =>
        organization.keys.map(({ key, scopes }) => [key, { key, scopes, organization }]),
      ),
    )
  }

  /** Every key of every organization, in fixture order. */
  get all(): ApiKey[] {
    return [...this.#keys.values()]
  }

  /** The key with its scopes and organization, or `undefined` for a key no organization has. */
  key(key: string): ApiKey | undefined {
    return this.#keys.get(key)
  }

  /** An organization by id; the first one when no id is given. */
  organization(organizationId?: string): OrganizationFixture {
    if (organizationId === undefined) return this.organizations[0]!
    const organization = this.organizations.find((candidate) => candidate.organization_id === organizationId)
    if (!organization) {
      throw new TypeError(
        `No organization ${organizationId}; known: ${this.organizations.map((o) => o.organization_id).join(', ')}.`,
      )
    }
    return organization
  }
}
