import ValidatorSelector from '@fastify/ajv-compiler';

type Factory = ReturnType<typeof ValidatorSelector>;
type Route = Parameters<ReturnType<Factory>>[0];
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * A headers schema with its property names in lower case, as Node gives header names: Fastify does
 * this for its own validator compiler but leaves a custom one's schemas alone, and this one is custom
 * only in when it compiles.
 */
function lowerCaseHeaders(route: Route): Route {
  const definition = route as unknown as { schema?: unknown; httpPart?: string };
  const schema = definition.schema as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  if (definition.httpPart !== 'headers' || schema?.properties === undefined) return route;
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k.toLowerCase(), v]));
  const required = schema.required?.map((name) => name.toLowerCase());
  return { ...definition, schema: { ...schema, properties, ...(required ? { required } : {}) } } as unknown as Route;
}

/** For each app, what compiles its validators not used yet. */
const unused = new WeakMap<object, () => number>();

/**
 * Fastify's own request validators (Ajv, with the options Fastify gives it), each compiled on its
 * first use instead of all at start-up, as the serializers are (lazy-serializers.ts). Compiling every
 * route's schemas at start allocated more than everything else the start does, and that burst grew
 * V8's young generation to its largest (32 MiB, given back only after some idle seconds): the idle
 * process then read 86 to 123 MiB, depending on when V8 gave it back. Even the Ajv instance (which
 * checks every shared schema as it is added) waits for a first request. A route's first request pays
 * for its own validators (a few milliseconds). `attach` ties them to their app for
 * `compileUnusedValidators`.
 */
export function lazyValidators(): { factory: Factory; attach: (app: object) => void } {
  const eager = ValidatorSelector();
  const pending = new Set<() => Validate>();
  const factory = ((externalSchemas, options) => {
    let compiler: ReturnType<Factory> | null = null;
    const compile = (route: Route) =>
      (compiler ??= eager(externalSchemas, options))(lowerCaseHeaders(route)) as Validate;
    return (route: Route) => {
      let validate: Validate | null = null;
      const compileNow = (): Validate => {
        validate ??= compile(route);
        pending.delete(compileNow);
        return validate;
      };
      pending.add(compileNow);
      // Fastify reads `errors` off the function it was given, and passes Ajv's data context to any
      // function with `schemaEnv` (so a root value can be changed in place): both as Ajv's own do.
      const lazy: Validate = function (this: unknown, data: unknown, context?: unknown) {
        const run = validate ?? compileNow();
        const result = run.call(this, data, context);
        lazy.errors = run.errors;
        return result;
      };
      lazy.schemaEnv = true;
      return lazy as ReturnType<ReturnType<Factory>>;
    };
  }) as Factory;
  const compileAll = (): number => {
    const count = pending.size;
    for (const compileNow of [...pending]) compileNow();
    return count;
  };
  return { factory, attach: (app) => unused.set(app, compileAll) };
}

/**
 * Compiles every validator of `app` not used yet and says how many: a schema that cannot be compiled
 * throws here (what a test calls) rather than at some route's first request.
 */
export function compileUnusedValidators(app: object): number {
  const compileAll = unused.get(app);
  if (compileAll === undefined) throw new Error('this app does not compile its validators lazily');
  return compileAll();
}
