import SerializerSelector from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = (doc: unknown) => string;

/** For each app, what compiles its serializers not used yet. */
const unused = new WeakMap<object, () => number>();

/**
 * Fastify's own response serializers (fast-json-stringify, with the options Fastify gives it), each
 * compiled on its first use instead of all at start-up: compiling every route's response schemas up
 * front was most of the time to listening. A route's first answer of each status pays for its own
 * (a few milliseconds). `attach` ties the serializers to their app for `compileUnusedSerializers`.
 */
export function lazySerializers(): { factory: Factory; attach: (app: object) => void } {
  const eager = SerializerSelector();
  const pending = new Set<() => Serializer>();
  const factory: Factory = (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: Serializer | null = null;
      const compileNow = (): Serializer => {
        serialize ??= compile(route);
        pending.delete(compileNow);
        return serialize;
      };
      pending.add(compileNow);
      return (doc: unknown) => (serialize ?? compileNow())(doc);
    };
  };
  const compileAll = (): number => {
    const count = pending.size;
    for (const compileNow of [...pending]) compileNow();
    return count;
  };
  return { factory, attach: (app) => unused.set(app, compileAll) };
}

/**
 * Compiles every serializer of `app` not used yet and says how many: a schema that cannot be
 * compiled throws here (what a test calls) rather than at some route's first answer.
 */
export function compileUnusedSerializers(app: object): number {
  const compileAll = unused.get(app);
  if (compileAll === undefined) throw new Error('this app does not compile its serializers lazily');
  return compileAll();
}
