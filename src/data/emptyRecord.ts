/**
 * A new record whose names inherit nothing: `__proto__`, `constructor` and
 * `toString` are names like any other, and a name never set reads as
 * undefined, as with `Object.create(null)`.
 *
 * @note Not `Object.create(null)`, which V8 makes a hash table from the
 * start: setting and reading names on one cost about three times as much,
 * and the journal makes three such records for every answer. An object made
 * by a constructor whose prototype has no prototype is one V8 keeps in its
 * fast form.
 * @example
 * const headers = emptyRecord<string>()
 * headers['__proto__'] = 'kept' // an own property, as any other name
 */
export function emptyRecord<T>(): Record<string, T> {
  return new WithoutPrototype() as Record<string, T>
}

// A function, not a class (a class's prototype has a `constructor`, which every record would inherit), nor an arrow
// function (which has no prototype to give).
// biome-ignore lint/complexity/useArrowFunction: `new` needs a function's prototype
const WithoutPrototype = function () {} as unknown as new () => object
WithoutPrototype.prototype = Object.freeze(Object.create(null))
