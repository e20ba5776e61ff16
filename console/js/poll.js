/**
 * Runs `task` now and then every `intervalMs`, one run at a time, while the page is visible (a hidden
 * tab costs the issuer nothing; coming back refreshes at once). Polling the admin API reads the
 * shared store, so it sees changes made through any instance. Returns how to stop.
 */
export function poll(task, intervalMs) {
  let timer = null;
  let stopped = false;

  async function tick() {
    clearTimeout(timer);
    if (stopped || document.hidden) return;
    try {
      await task();
    } catch {
      // A failed poll is retried at the next tick; a lost session is handled by the API module.
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  }

  const onVisibility = () => {
    if (!document.hidden) tick();
  };
  document.addEventListener('visibilitychange', onVisibility);
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
