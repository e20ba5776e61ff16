/** One writer per scanner state in a browser: the Web Locks API across tabs, else within this page. */
import { ScannerError } from '../errors.ts';

/**
 * The states this page holds, by IndexedDB and database name: where there is no Web Locks API, two
 * storages over the same database in one page still keep each other out.
 */
const heldHere = new WeakMap<IDBFactory, Set<string>>();

/**
 * Takes the state of database `name` for this storage: the Web Locks API across tabs where the
 * browser has it (another tab holding the state gives STATE_IN_USE), else within this page.
 * Resolves to the function that gives it back.
 */
export async function lockState(factory: IDBFactory, name: string): Promise<() => Promise<void>> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) {
    let held = heldHere.get(factory);
    if (!held) heldHere.set(factory, (held = new Set()));
    if (held.has(name)) throw new ScannerError('STATE_IN_USE', 'the scanner state is in use');
    held.add(name);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      held.delete(name);
    };
  }
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const granted = await new Promise<boolean>((resolve, reject) => {
    locks
      .request(`${name}-state`, { ifAvailable: true }, (lock) => {
        resolve(lock !== null);
        return lock === null ? undefined : held;
      })
      .catch(reject);
  });
  if (!granted) throw new ScannerError('STATE_IN_USE', 'the scanner is open in another tab or window');
  return async () => release();
}
