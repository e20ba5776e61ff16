/**
 * Random histories for the differential test (fast-check arbitraries). Which kinds of step and setup
 * are generated is one list, `ENABLED`: a kind whose disagreement is known stays out until its fix
 * lands (see `regressions.ts`), and turning it on is one line. `DIFFERENTIAL_KINDS` (comma-separated)
 * replaces the list for one run, e.g. to look again at a kind that is off.
 */
import fc from 'fast-check';
import { codeSetupArbs, codeStepArbs } from './generator-codes.ts';
import { type History, type Setup, type Step, type StepKind, TYPES, type TypeRules } from './history.ts';

/** Parts of a history that can be switched on and off besides the step kinds. */
export type Feature =
  /** Starts near a summer-time change in a zone that has one, so the history may cross it. */
  | 'dst'
  /** A day start that a zone skips or repeats on its change day (02:30). */
  | 'dst_day_start'
  /**
   * An exit of a ticket while an earlier offline admission of it waits in another device's queue (or
   * any, for an online exit), or the automatic exit switched off while one waits: the entry may then
   * reach the issuer after an exit scanned later than it. Off, such a step is skipped.
   */
  | 'exit_before_upload'
  /**
   * An undo of an entry when an entry of the ticket scanned before it reached the issuer after it (a
   * late upload). Off, such an undo is skipped.
   */
  | 'undo_after_late_entry'
  /** A device uploads scans older than 48 hours (refused for good). Off, it uploads before they are. */
  | 'upload_after_48h'
  /** The organizer undoes an entry a device admitted offline (the device learns it from the feed). */
  | 'admin_undo_of_device_entry';

export type Switch = StepKind | Feature;

/**
 * What is generated today: every kind the issuer and the devices agree on. A kind whose disagreement
 * is found stays off until its fix lands (a todo case in regressions.ts); none is off today.
 */
export const ENABLED: readonly Switch[] = [
  'wait',
  'nextDay',
  'worker',
  'checkIn',
  'checkOut',
  'offlineIn',
  'offlineOut',
  'deviceIn',
  'deviceOut',
  'deviceUndo',
  'sync',
  'annulOnline',
  'annulQueued',
  'annulAdmin',
  'typeRules',
  'eventSettings',
  'calendar',
  'revoke',
  'dst',
  'dst_day_start',
  'undo_after_late_entry',
  'together',
  'upload_after_48h',
  'exit_before_upload',
  'admin_undo_of_device_entry',
  'codeIn',
  'groupIn',
  'skew',
  'edge',
];

/**
 * The issuer's settings in these runs: an undo window shorter than the devices' default (900 s), so
 * that an undo a device queued may be refused by the issuer; logs kept short over many runs.
 */
export const ISSUER_ENV: Record<string, string> = { ANNUL_WINDOW_S: '600', LOG_LEVEL: 'warn' };

/** The switches of this run: `DIFFERENTIAL_KINDS` when set, else `ENABLED`. */
export function enabledSwitches(env: NodeJS.ProcessEnv = process.env): ReadonlySet<Switch> {
  const named = env.DIFFERENTIAL_KINDS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return new Set((named ?? ENABLED) as Switch[]);
}

/** Summer time near each start: none in June; otherwise the EU's changes (March 29, October 25) or the US's (November 1). */
const STARTS_PLAIN = ['2026-06-01T10:00:00.000Z'];
const STARTS_DST = ['2026-03-28T10:00:00.000Z', '2026-10-24T10:00:00.000Z', '2026-10-31T12:00:00.000Z'];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York'];

/** Null `weight` times in `weight + 1`, else a value. */
const mostlyNull = <T>(arbitrary: fc.Arbitrary<T>, weight: number): fc.Arbitrary<T | null> =>
  fc.oneof({ arbitrary: fc.constant(null), weight }, { arbitrary, weight: 1 });
const small = (max: number) => mostlyNull(fc.integer({ min: 1, max }), 1);

/** Random rules for a ticket type. */
export const typeRules = (): fc.Arbitrary<TypeRules> =>
  fc.record({
    reentry: fc.constantFrom(null, 'none', 'after_exit', 'any') as fc.Arbitrary<TypeRules['reentry']>,
    max_entries: small(3),
    max_entries_per_day: small(2),
    min_minutes_between_entries: mostlyNull(fc.constantFrom(5, 30, 90), 1),
    valid_days: mostlyNull(fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 3 }), 3),
    hours: mostlyNull(
      fc
        .tuple(fc.integer({ min: 0, max: 16 }), fc.integer({ min: 4, max: 20 }))
        .map(([from, span]) => ({ from, until: Math.min(23, from + span) })),
      3,
    ),
  });

function setupArb(on: ReadonlySet<Switch>): fc.Arbitrary<Setup> {
  const starts = on.has('dst') ? [...STARTS_PLAIN, ...STARTS_DST] : STARTS_PLAIN;
  const dayStarts = on.has('dst_day_start') ? ['00:00', '04:00', '06:00', '02:30'] : ['00:00', '04:00', '06:00'];
  return fc.record({
    start: fc.constantFrom(...starts),
    timezone: fc.constantFrom(...ZONES),
    day_starts_at: fc.constantFrom(...dayStarts),
    auto_exit: fc.boolean(),
    reentry: fc.boolean(),
    types: fc.record({ A: typeRules(), B: typeRules() }),
    tickets: fc.array(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
    devices: fc.integer({ min: 2, max: 3 }),
    gates: fc.array(mostlyNull(fc.subarray([...TYPES], { minLength: 1 }), 2), {
      minLength: 1,
      maxLength: 2,
    }),
    ...codeSetupArbs(),
  });
}

const index = fc.integer({ min: 0, max: 3 });
const at = { device: index, ticket: index, gate: index };

/** Every kind of step, with its weight in a history. */
function stepArbs(): Record<StepKind, { arbitrary: fc.Arbitrary<Step>; weight: number }> {
  const w = <T extends Step>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ arbitrary, weight });
  return {
    wait: w(4, fc.record({ kind: fc.constant('wait'), minutes: fc.integer({ min: 1, max: 240 }) })),
    nextDay: w(
      2,
      fc.record({ kind: fc.constant('nextDay'), minutes: fc.integer({ min: 0, max: 90 }), worker: fc.boolean() }),
    ),
    worker: w(1, fc.record({ kind: fc.constant('worker') })),
    checkIn: w(8, fc.record({ kind: fc.constant('checkIn'), ...at })),
    checkOut: w(4, fc.record({ kind: fc.constant('checkOut'), ...at })),
    offlineIn: w(6, fc.record({ kind: fc.constant('offlineIn'), ...at })),
    offlineOut: w(3, fc.record({ kind: fc.constant('offlineOut'), ...at })),
    deviceIn: w(5, fc.record({ kind: fc.constant('deviceIn'), ...at })),
    deviceOut: w(3, fc.record({ kind: fc.constant('deviceOut'), ...at })),
    deviceUndo: w(2, fc.record({ kind: fc.constant('deviceUndo'), pick: index })),
    sync: w(5, fc.record({ kind: fc.constant('sync'), device: index })),
    annulOnline: w(3, fc.record({ kind: fc.constant('annulOnline'), pick: index })),
    annulQueued: w(3, fc.record({ kind: fc.constant('annulQueued'), pick: index })),
    annulAdmin: w(2, fc.record({ kind: fc.constant('annulAdmin'), pick: index })),
    typeRules: w(1, fc.record({ kind: fc.constant('typeRules'), type: fc.constantFrom(...TYPES), rules: typeRules() })),
    calendar: w(
      1,
      fc.record(
        {
          kind: fc.constant('calendar'),
          timezone: fc.constantFrom(...ZONES),
          day_starts_at: fc.constantFrom('00:00', '04:00', '06:00'),
        },
        { requiredKeys: ['kind'] },
      ),
    ),
    eventSettings: w(
      1,
      fc.record(
        { kind: fc.constant('eventSettings'), reentry: fc.boolean(), auto_exit: fc.boolean() },
        { requiredKeys: ['kind'] },
      ),
    ),
    revoke: w(1, fc.record({ kind: fc.constant('revoke'), ticket: index })),
    together: w(1, fc.record({ kind: fc.constant('together') })),
    ...codeStepArbs(),
  } as Record<StepKind, { arbitrary: fc.Arbitrary<Step>; weight: number }>;
}

/** Indexes reduced to the setup's counts, so that a printed history names what it uses. */
export function normalize(history: History): History {
  const { setup } = history;
  const fit = (n: number, count: number) => n % count;
  const steps = history.steps.map((step): Step => {
    const s = { ...step } as Record<string, unknown>;
    if (typeof s.device === 'number') s.device = fit(s.device, setup.devices);
    if (typeof s.ticket === 'number') s.ticket = fit(s.ticket, setup.tickets.length);
    if (typeof s.gate === 'number') s.gate = fit(s.gate, setup.gates.length);
    return s as Step;
  });
  return { setup, steps, probeGate: fit(history.probeGate, setup.gates.length) };
}

/** Histories of at most `maxSteps` steps made of the enabled kinds. */
export function historyArb(maxSteps: number, on: ReadonlySet<Switch> = enabledSwitches()): fc.Arbitrary<History> {
  const kinds = Object.entries(stepArbs()).filter(([kind]) => on.has(kind as StepKind));
  const step = fc.oneof(...kinds.map(([, arb]) => arb));
  return fc
    .record({
      setup: setupArb(on),
      steps: fc.array(step, { minLength: 1, maxLength: maxSteps, size: 'max' }),
      probeGate: index,
    })
    .map(normalize);
}
