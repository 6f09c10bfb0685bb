/**
 * `T` with every array and property readonly. Inputs are typed with it so that `as const` literals and
 * frozen configuration can be passed as they are; a mutable value is assignable to it too.
 */
export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends (...args: never[]) => unknown
    ? T
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;
