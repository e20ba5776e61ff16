import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';

/**
 * The schemas published under `components.schemas` of the OpenAPI document. Each is added to
 * Fastify once (`app.addSchema`) and referenced by `$ref` everywhere else, so validation,
 * serialization and the document share one definition and a client generator sees one name.
 */
const registry = new Map<string, TSchema>();

/**
 * Names a schema: registers it under `id` and returns a `$ref` to it that keeps its static type.
 * Use the returned reference everywhere; the schema itself never appears inline twice.
 */
export function named<T extends TSchema>(id: string, schema: T): TUnsafe<Static<T>> {
  if (registry.has(id)) throw new Error(`schema ${id} is named twice`);
  registry.set(id, { ...schema, $id: id });
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}

/** Every named schema, for `app.addSchema`. */
export function namedSchemas(): TSchema[] {
  return [...registry.values()];
}

/** A string with a fixed set of values, as one `enum` (a union of literals would read as anyOf). */
export const StringEnum = <T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
