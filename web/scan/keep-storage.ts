/**
 * Asks the browser to keep this site's storage under storage pressure (queued scans, the key, what the
 * feed taught): otherwise it may evict IndexedDB of a site not visited for a while, scans not yet
 * uploaded included. Chromium decides without a prompt (an installed app, a bookmarked site); a
 * refusal or a browser without the API changes nothing else.
 */
export function keepStorage(): void {
  const storage = navigator.storage;
  if (typeof storage?.persist !== 'function') return;
  void storage
    .persisted()
    .then((kept) => kept || storage.persist())
    .catch(() => undefined);
}
