/** What the page shows of the device's state: the header, and the scan view's sync and device sections. */
import type { DeviceState } from './device.ts';
import { byId } from './dom.ts';
import { formatWhen } from './verdict-text.ts';

/** The header: the event and gate, the scanner's name, and whether the device can reach the issuer. */
export function renderHeader(state: DeviceState): void {
  // A device whose key the issuer refused is not ready to scan, whatever the network says.
  const network = byId('network');
  network.textContent = state.keyRejected ? 'Key revoked' : state.online ? 'Online' : 'Offline';
  network.classList.toggle('online', state.online && !state.keyRejected);
  byId('event').textContent = state.eventName
    ? `${state.eventName}${state.gate ? ` · gate ${state.gate}` : ''}`
    : 'Not enrolled';
  const scannerName = byId('scanner-name');
  scannerName.textContent = state.enrolled && state.scannerName ? `Scanner: ${state.scannerName}` : '';
  scannerName.hidden = scannerName.textContent === '';
  const clock = byId('clock-warning');
  const minutes = state.enrolled ? state.clockOffMinutes : null;
  clock.textContent = minutes === null ? '' : `This phone's clock is ${minutes} minute${minutes === 1 ? '' : 's'} off`;
  clock.hidden = minutes === null;
}

/** The scan view's sync and device sections. */
export function renderStatus(state: DeviceState): void {
  byId('queued').textContent = String(state.queued);
  const lastSync = byId('last-sync');
  lastSync.textContent = state.lastSyncAt ? formatWhen(state.lastSyncAt) : 'never';
  if (state.lastSyncAt) lastSync.setAttribute('datetime', state.lastSyncAt);
  const syncButton = byId<HTMLButtonElement>('sync-now');
  syncButton.disabled = state.syncing;
  byId('sync-message').textContent = state.syncing ? 'Syncing…' : (state.problem ?? '');
  byId('device-text').textContent = state.scannerName
    ? `Enrolled as “${state.scannerName}”.`
    : 'Enrolled; the issuer named this device.';
  const forget = byId<HTMLButtonElement>('forget');
  forget.disabled = state.queued > 0;
  byId('forget-message').textContent =
    state.queued > 0
      ? `${state.queued === 1 ? '1 scan waits' : `${state.queued} scans wait`} for the issuer: sync before forgetting this device.`
      : '';
}
