/** Where the CLI's bundle comes from: the package, its entry module, and the folder the bundle is kept in. */
export interface BundleOptions {
  packageDir?: string;
  entry?: string;
  cacheDir?: string;
}

/**
 * The path of an up-to-date bundle of the package's CLI, made now if there is none or a source
 * changed; null when none can be had (the caller then runs the sources through tsx).
 */
export function bundledCli(options?: BundleOptions): Promise<string | null>;

/** The CLI's module: from its bundle, else its sources compiled by tsx as they load. */
export function loadCli(options?: BundleOptions): Promise<{ main: (argv: string[]) => Promise<number> }>;
