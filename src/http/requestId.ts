const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A fresh `req_` id: 24 random url-safe characters. Random, not seeded:
 * two requests never share an id, not even across resets.
 */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  let id = 'req_'
  // @note The modulo bias is harmless: an id must be unique, not uniform.
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length]
  return id
}
