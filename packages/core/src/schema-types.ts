// The type a literal JSON Schema describes, for `fromJsonSchema(schema)` without a hand-written
// generic. Types only: nothing here exists at run time. It follows the supported subset
// (the specification's Core API page) and what `parse` returns:
//   type (one name or an array of names; "integer" and "number" are both `number`, formats are
//   `string`), const, enum, properties / required / additionalProperties (absent or true: other
//   keys are `JsonValue`), a property with a `default` is always present (parse inserts it),
//   items, anyOf (the union of its branches, each narrowed by the keywords beside it),
//   $ref "#/$defs/<name>" resolved in the root's $defs, references between definitions included.
// A schema whose type is not literal (a `JsonSchema` variable, a `string` where a type name
// belongs) is `JsonValue`. Recursive definitions are expanded `REF_DEPTH` references deep, then
// `JsonValue`. Checking stays linear in the schema: each (subschema, depth) is instantiated once
// and object members resolve lazily. Only a printed type (a hover, an emitted .d.ts) repeats a
// definition at every place it is referenced.

import type { JsonValue } from "./types.js";

/**
 * The value type of a literal JSON Schema, as `fromJsonSchema(schema).parse` returns it.
 *
 * ```ts
 * type Row = FromJsonSchema<{
 *   type: "object";
 *   properties: { id: { type: "string" }; note: { type: ["string", "null"] } };
 *   required: ["id"];
 *   additionalProperties: false;
 * }>; // { id: string; note?: string | null }
 * ```
 */
export type FromJsonSchema<S> = Infer<S, S, REF_DEPTH>;

/** How many `$ref`s one path may follow before the rest is typed `JsonValue` (recursion ends). */
type REF_DEPTH = 8;
type Depth = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
/** `Dec[n]` is n - 1. */
type Dec = [0, 0, 1, 2, 3, 4, 5, 6, 7];

type JsonObject = { [key: string]: JsonValue };
type TypeName = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";
/** The keywords that narrow a value (the rest are annotations or do not change the type). */
type Narrowing = "type" | "const" | "enum" | "properties" | "required" | "additionalProperties" | "items" | "anyOf" | "$ref";

type Infer<S, R, D extends Depth> = 0 extends 1 & S
  ? JsonValue // any
  : S extends object
    ? string extends keyof S
      ? JsonValue // not a literal: a JsonSchema (Record<string, unknown>) variable
      : Literal<S, R, D>
    : JsonValue;

/** `$ref` and `anyOf` are met with what their sibling keywords say; the rest is `Own`. */
type Literal<S, R, D extends Depth> = S extends { readonly $ref: infer Ref }
  ? Beside<Omit<S, "$ref">, RefTarget<Ref, R, D>, R, D>
  : S extends { readonly anyOf: infer A extends readonly unknown[] }
    ? Beside<Omit<S, "anyOf">, Branches<A[number], R, D>, R, D>
    : Own<S, R, D>;

type Beside<Rest, T, R, D extends Depth> = [keyof Rest & Narrowing] extends [never] ? T : Meet<Infer<Rest, R, D>, T>;

type Branches<B, R, D extends Depth> = B extends unknown ? Infer<B, R, D> : never;

type Own<S, R, D extends Depth> = S extends { readonly const: infer C }
  ? Mutable<C>
  : S extends { readonly enum: readonly (infer E)[] }
    ? Mutable<E>
    : S extends { readonly type: infer T }
      ? OfType<T extends readonly unknown[] ? T[number] : T, S, R, D>
      : [keyof S & ("properties" | "required" | "additionalProperties" | "items")] extends [never]
        ? JsonValue
        : OfType<TypeName, S, R, D>; // no `type`: every type, objects and arrays as the keywords say

type OfType<N, S, R, D extends Depth> = string extends N
  ? JsonValue // a type name that is not a literal
  : N extends "string"
    ? string
    : N extends "number" | "integer"
      ? number
      : N extends "boolean"
        ? boolean
        : N extends "null"
          ? null
          : N extends "array"
            ? S extends { readonly items: infer I }
              ? Infer<I, R, D>[]
              : JsonValue[]
            : N extends "object"
              ? ObjectOf<S, R, D>
              : never;

type PropsOf<S> = S extends { readonly properties: infer P extends object } ? P : {};
/** `required` names; a `required` that is not literal makes no property required. */
type RequiredOf<S> = S extends { readonly required: readonly (infer K extends string)[] } ? (string extends K ? never : K) : never;
/** Properties with a direct `default`: parse inserts it when the key is missing. */
type Defaulted<P> = { [K in keyof P]: P[K] extends { readonly default: unknown } ? K : never }[keyof P];

/** A property key as `required` names it (`{ 1: ... }` is the key "1"). */
type Name<K> = K extends number ? `${K}` : K;

type ObjectOf<S, R, D extends Depth, P = PropsOf<S>, Q = RequiredOf<S> | Name<Defaulted<P>>> = [keyof P | RequiredOf<S>] extends [never]
  ? S extends { readonly additionalProperties: false }
    ? Record<string, never>
    : JsonObject
  : Simplify<
      { -readonly [K in keyof P as Name<K> extends Q ? K : never]: Infer<P[K], R, D> } & {
        -readonly [K in keyof P as Name<K> extends Q ? never : K]?: Infer<P[K], R, D>;
      } & { [K in Exclude<RequiredOf<S>, Name<keyof P>>]: JsonValue } & (S extends { readonly additionalProperties: false } ? {} : JsonObject)
    >;

type RefTarget<Ref, R, D extends Depth> = D extends 0
  ? JsonValue
  : Ref extends `#/$defs/${infer N}`
    ? R extends { readonly $defs: infer Defs }
      ? Unescape<N> extends infer K extends keyof Defs
        ? Infer<Defs[K], R, Dec[D]>
        : JsonValue
      : JsonValue
    : JsonValue;

/** RFC 6901: `~1` is `/`, then `~0` is `~`. */
type Unescape<N extends string> = N extends `${infer A}~1${infer B}` ? Unescape<`${A}/${B}`> : Tilde<N>;
type Tilde<N extends string> = N extends `${infer A}~0${infer B}` ? `${A}~${Tilde<B>}` : N;

/**
 * What satisfies both, member by member: the narrower of two scalars, arrays of what both items
 * allow, objects with the properties of both (closed when either is).
 */
type Meet<X, Y> = X extends unknown ? (Y extends unknown ? MeetOne<X, Y> : never) : never;
type MeetOne<X, Y> = X extends readonly (infer A)[]
  ? Y extends readonly (infer B)[]
    ? Meet<A, B>[]
    : never
  : Y extends readonly unknown[]
    ? never
    : X extends object
      ? Y extends object
        ? string extends keyof X & keyof Y
          ? Simplify<X & Y>
          : Closed<X & Y>
        : never
      : Y extends object
        ? never
        : [X] extends [Y]
          ? X
          : [Y] extends [X]
            ? Y
            : never;

/** Without the index signature: no keys but the listed ones. */
type Closed<T> = T extends infer O ? { [K in keyof O as string extends K ? never : number extends K ? never : K]: O[K] } : never;

/** `const`/`enum` values are inferred readonly; payloads are plain JSON values. */
type Mutable<T> = T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T;

type Simplify<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
