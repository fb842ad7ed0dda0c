const BEARER = /^Bearer +([^\s]+) *$/i

/**
 * The token of an `Authorization: Bearer <token>` header, or null when the
 * header is missing or not of that form.
 *
 * @example
 * bearerToken('Bearer sk_sandbox_all') // 'sk_sandbox_all'
 */
export function bearerToken(authorization: string | null): string | null {
  return (authorization && BEARER.exec(authorization)?.[1]) ?? null
}
