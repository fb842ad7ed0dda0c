/**
 * A new record whose names inherit nothing: `__proto__`, `constructor` and
 * `toString` are names like any other, and a name never set reads as
 * undefined, as with `Object.create(null)`.
 *
 * @note Not `Object.create(null)`, which V8 makes a hash table from the
 * start: setting and reading names on one cost about three times as much,
 * and the journal makes three such records for every answer. An object made
 * by a constructor whose prototype has no prototype is one V8 keeps in its
 * fast form. Its one difference: its prototype is an empty object, not
 * null, so Node's `assert.deepStrictEqual` tells it from an
 * `Object.create(null)` record with the same names (vitest's `toEqual` and
 * `toStrictEqual` do not).
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
WithoutPrototype.prototype = Object.freeze(
  Object.create(null, {
    // Shown by Node's `inspect` (console.log of a journal entry) as `Object.create(null)`'s would be, not as
    // `WithoutPrototype <[Object: null prototype] {}> {…}`. A symbol: no name of a record's can meet it.
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value(this: object, depth: number, options: object, inspect: (value: unknown, options: object) => string) {
        return inspect(Object.assign(Object.create(null), this), { ...options, depth })
      },
    },
  }),
)
