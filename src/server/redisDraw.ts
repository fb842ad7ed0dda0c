/**
 * Lua that defines `mixed_hash(text)`, the very number `mixedHash` (FaultRules.ts) makes in JS, so that one seed
 * draws one run of faults in memory and in a fleet's Redis. A script that draws starts with it.
 *
 * @note Redis runs Lua 5.1: numbers are doubles, exact below 2^53, and its `bit` library works on 32 bits and
 * answers signed, hence the `% 2^32` after each of its calls. A product of two 32-bit numbers would lose its low
 * bits in a double, so `times` multiplies by halves of 16 bits, as `Math.imul` would. The texts drawn from (a seed,
 * a rule's id, a count) are ASCII, so Lua's bytes are JS's UTF-16 code units.
 */
export const MIXED_HASH = `
local function times(a, b)
  local low = a % 65536
  local high = (a - low) / 65536
  return (low * b + ((high * (b % 65536)) % 65536) * 65536) % 4294967296
end
local function mixed_hash(text)
  local hash = 2166136261
  for i = 1, #text do
    hash = times(bit.bxor(hash, string.byte(text, i)) % 4294967296, 16777619)
  end
  hash = times(bit.bxor(hash, bit.rshift(hash, 16)) % 4294967296, 2246822507)
  hash = times(bit.bxor(hash, bit.rshift(hash, 13)) % 4294967296, 3266489909)
  return bit.bxor(hash, bit.rshift(hash, 16)) % 4294967296
end
`
