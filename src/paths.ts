import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root directory (where package.json, console/ and node_modules/ are). This module is
 * one level below it in the sources (src/paths.ts) and its code one level below it in the build
 * (bundled into dist/<entry>.js), so the same relative URL names the root from both. Every file the
 * issuer reads from the project is resolved here, never from a module's own import.meta.url, whose
 * depth differs once bundled.
 */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A path inside the project, from its root: `projectPath('console')`. */
export const projectPath = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);
