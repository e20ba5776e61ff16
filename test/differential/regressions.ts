/**
 * The differential test's table of named histories: what it found (each disagreement it shrank, kept
 * here with its diagnosis and the switch that lets the random run make it again) and paths that were
 * hard to get right. A case with `known` is a disagreement of today's code: its test is marked todo
 * (reported, not failing) until the fix lands; then `known` goes, and its switches join `ENABLED`.
 */
import type { Switch } from './generator.ts';
import { type At, type History, NO_RULES, setup, type Setup, type Step, type TypeRules } from './history.ts';

export interface Regression {
  name: string;
  history: History;
  /** Switches the history needs besides `ENABLED` (the guards would skip its steps otherwise). */
  switches: Switch[];
  /** Which side is wrong, and where: a disagreement today's code has (the test is todo). */
  known?: string;
}

const at = (device = 0, ticket = 0, gate = 0): At => ({ device, ticket, gate });
const enter = (device = 0): Step => ({ kind: 'checkIn', ...at(device) });
const leave = (device = 0): Step => ({ kind: 'checkOut', ...at(device) });
const enterOffline = (device = 0): Step => ({ kind: 'offlineIn', ...at(device) });
const leaveOffline = (device = 0): Step => ({ kind: 'offlineOut', ...at(device) });
const sync = (device = 0): Step => ({ kind: 'sync', device });
const wait = (minutes: number): Step => ({ kind: 'wait', minutes });
const nextDay = (minutes: number, worker: boolean): Step => ({ kind: 'nextDay', minutes, worker });
const together: Step = { kind: 'together' };

/** A history of one ticket of type A (with these rules) on an event set up so. */
function history(steps: Step[], event: Partial<Setup> = {}, typeA: Partial<TypeRules> = {}): History {
  return { setup: setup({ ...event, types: { A: { ...NO_RULES, ...typeA }, B: NO_RULES } }), steps, probeGate: 0 };
}

const FALL_BACK_BERLIN: Partial<Setup> = {
  start: '2026-10-24T10:00:00.000Z',
  timezone: 'Europe/Berlin',
  day_starts_at: '02:30',
};

export const REGRESSIONS: Regression[] = [
  {
    name: 'an exit answered not_inside is applied when the earlier offline entry arrives',
    history: history([enterOffline(1), leave(0), sync(1)], { reentry: true }),
    switches: ['exit_before_upload'],
  },
  {
    name: 'an offline entry uploaded after the day start it missed is counted out at that start',
    history: history([wait(600), enterOffline(1), nextDay(30, true), sync(1)], { auto_exit: true, reentry: true }),
    switches: [],
  },
  {
    name: 'a holder inside since yesterday is out at the scan before the worker runs',
    history: history([wait(600), enter(0), nextDay(30, false), leaveOffline(1), sync(1), { kind: 'worker' }], {
      auto_exit: true,
      reentry: true,
    }),
    switches: [],
  },
  {
    name: "an undo the issuer refuses for its shorter window leaves the device's entry counted",
    history: history([enterOffline(1), sync(1), wait(11), { kind: 'annulQueued', pick: 0 }, sync(1)], {
      reentry: true,
    }),
    switches: [],
  },
  {
    name: 'an entry uploaded late behind an exit scanned after it leaves the holder out',
    history: history([enter(0), enterOffline(1), leave(0)], { reentry: true }),
    switches: ['exit_before_upload'],
  },
  {
    name: 'a late entry behind an automatic exit, once auto_exit is off, leaves the holder out',
    history: history(
      [enter(0), enterOffline(0), nextDay(0, true), { kind: 'eventSettings', auto_exit: false }, sync(0)],
      { auto_exit: true },
    ),
    switches: ['exit_before_upload'],
  },
  {
    name: 'issuer: undoing an entry when an earlier-scanned entry arrived after it leaves the holder inside',
    history: history([enterOffline(1), enter(0), sync(1), { kind: 'annulOnline', pick: 0 }], { reentry: true }),
    switches: ['undo_after_late_entry'],
  },
  {
    name: 'device: an admission the issuer refused for good (over 48 h old) no longer counts the holder inside',
    history: history([enterOffline(0), wait(2900), sync(0)]),
    switches: ['upload_after_48h'],
  },
  {
    name: "device: the organizer's undo of a device's own admission lets that device admit again",
    history: history([
      { kind: 'deviceIn', ...at(0) },
      { kind: 'annulAdmin', pick: 0 },
    ]),
    switches: ['admin_undo_of_device_entry'],
  },
  {
    name: "device: the organizer's undo of a device's offline admission, 20 minutes on, lets it admit again",
    history: history([enterOffline(0), sync(0), { kind: 'annulAdmin', pick: 0 }, wait(20)]),
    switches: ['admin_undo_of_device_entry'],
  },
  {
    name: 'device: two entries at the same instant on two devices count as two',
    history: history([enter(0), together, enter(1)], {}, { reentry: 'any' }),
    switches: ['together'],
  },
  {
    name: 'issuer: on a fall-back day the automatic exit is dated at the first 02:30, before a later entry',
    history: history([enter(0), wait(880), { kind: 'worker' }, enter(1)], {
      ...FALL_BACK_BERLIN,
      auto_exit: true,
      reentry: true,
    }),
    switches: ['dst_day_start'],
  },
  {
    name: "device: a code known by its digest is judged by its type's hours (issue 44)",
    history: history([wait(1), sync(0)], {}, { hours: { from: 0, until: 4 } }),
    switches: [],
  },
  {
    name: 'device: codes by digest and by the roster at a gate admitting one type, members of one order',
    history: {
      setup: setup({
        tickets: ['A', 'B', 'B'],
        devices: 3,
        gates: [['B']],
        search: [true, false, true],
        grouped: true,
        codeForm: 'spaced',
      }),
      steps: [
        { kind: 'codeIn', offline: true, unknown: false, ...at(1, 1) },
        { kind: 'groupIn', offline: true, mask: 7, ...at(0, 0) },
        { kind: 'codeIn', offline: true, unknown: true, ...at(1, 2) },
        sync(0),
      ],
      probeGate: 0,
    },
    switches: [],
  },
  {
    name: "device: a clock 10 minutes fast, measured at its sync, judges the edge of a type's hours as the issuer",
    history: history(
      [
        { kind: 'skew', device: 0, seconds: 600 },
        { kind: 'skew', device: 1, seconds: -299 },
        { kind: 'edge', type: 'A', side: 'from', seconds: -30 },
        { kind: 'codeIn', offline: true, unknown: false, ...at(0) },
      ],
      {},
      { hours: { from: 14, until: 16 } },
    ),
    switches: [],
  },
];
