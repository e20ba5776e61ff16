// The gate scanner's service worker: it keeps the app's own files so that /scan/ opens with no
// network once it has been opened. The build writes the version and the file list (dist/scan/sw.js);
// the version changes whenever any of those files does, so a new build replaces the whole set.
// It never touches the API: scans, syncs and enrolment always go to the network, and nothing but
// these public files is ever put in Cache Storage.
const VERSION = '__VERSION__';
const FILES = ['__FILES__'];
const CACHE = `scan-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((name) => name.startsWith('scan-') && name !== CACHE).map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  // The page itself, however it is asked for (/scan/, /scan/index.html, with a query).
  const page = url.pathname === scope.pathname || url.pathname === `${scope.pathname}index.html`;
  const key = page ? scope.href : url.href;
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(key, { ignoreSearch: true }))
      .then((cached) => cached ?? fetch(request)),
  );
});
