/**
 * Rules made by a factory (`atMostChars(20)`, `parameterHasValue('image')`): a schema calls the function a factory returns, and
 * the checker generator (scripts/checkers/) must call the same rule, not a copy. `ruleFactory` records which
 * factory made a function and with which arguments, so the generated file can import the factory and make the
 * same rule with the same arguments. Zod-free, imports nothing.
 */

const made = new WeakMap<object, { factory: object; args: readonly unknown[] }>();

/**
 * A factory of rules whose every product remembers how it was made (`madeBy`). Arguments must be JSON values: the
 * generated code writes them out.
 *
 * @example
 * export const atLeast = ruleFactory((min: number) => (n: number) => n >= min);
 * madeBy(atLeast(3)); // { factory: atLeast, args: [3] }
 */
export function ruleFactory<A extends unknown[], F extends (...args: never[]) => unknown>(
  make: (...args: A) => F,
): (...args: A) => F {
  const factory = (...args: A): F => {
    const rule = make(...args);
    made.set(rule, { factory, args });
    return rule;
  };
  return factory;
}

/** The factory that made `rule` and its arguments, or `undefined` for a function no `ruleFactory` made. */
export function madeBy(rule: unknown): { factory: object; args: readonly unknown[] } | undefined {
  return typeof rule === 'function' ? made.get(rule) : undefined;
}
