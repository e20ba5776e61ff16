/**
 * The histories the differential test replays: one event's setup (calendar, gates, ticket types, tickets,
 * devices) and a list of steps (scans online and offline, exits, undos, uploads, clock moves, the
 * automatic exit, rule changes). Plain data, so that a counterexample fast-check finds prints as a
 * history one can paste into the table of regressions (`regressions.ts`).
 */

/** A ticket type's rules; days are offsets from the event's first day, hours count from the day start. */
export interface TypeRules {
  reentry: null | 'none' | 'after_exit' | 'any';
  max_entries: number | null;
  max_entries_per_day: number | null;
  min_minutes_between_entries: number | null;
  /** Event days by offset from the first (0 = the day of the first scan), or null: every day. */
  valid_days: number[] | null;
  /** From and until as whole hours after the day start (from < until), or null: all day. */
  hours: { from: number; until: number } | null;
}

export const TYPES = ['A', 'B'] as const;
export type TypeName = (typeof TYPES)[number];

export interface Setup {
  /** The issuer's clock when the history begins (an instant). */
  start: string;
  timezone: string;
  day_starts_at: string;
  auto_exit: boolean;
  reentry: boolean;
  types: Record<TypeName, TypeRules>;
  /** Each ticket's type. */
  tickets: TypeName[];
  /** Scanner devices (each also scans online under its key). */
  devices: number;
  /** Declared gates `g0`, `g1`, …: each admits every type (null) or the listed ones. */
  gates: (TypeName[] | null)[];
  /**
   * Which devices are enrolled with `allow_search` (they keep the roster; the others the codes'
   * digests with their types); absent: none.
   */
  search?: boolean[];
  /** All the tickets are of one order (`order_ref`), a group; absent: none is. */
  grouped?: boolean;
  /** How short codes are typed in this history; absent: as printed. */
  codeForm?: CodeForm;
}

/** A short code as typed: as printed (`K7M2P-9QX4T`), in lower case, without the dash, with a space. */
export type CodeForm = 'printed' | 'lower' | 'nodash' | 'spaced';

/** Where a scan happens: which device, which ticket, which gate (indexes). */
export interface At {
  device: number;
  ticket: number;
  gate: number;
}

export type Step =
  /** The clock moves on. */
  | { kind: 'wait'; minutes: number }
  /** The clock moves to the next event day's start plus `minutes`; `worker`: the automatic exit runs then. */
  | { kind: 'nextDay'; minutes: number; worker: boolean }
  /** The issuer's automatic-exit worker looks now (it may have been down at the day start). */
  | { kind: 'worker' }
  /** An entry scanned and sent at once (POST check-in). */
  | ({ kind: 'checkIn' } & At)
  /** An exit scanned and sent at once (POST check-out). */
  | ({ kind: 'checkOut' } & At)
  /** An entry decided on the device, queued. */
  | ({ kind: 'offlineIn' } & At)
  /** An exit decided on the device, queued. */
  | ({ kind: 'offlineOut' } & At)
  /** An entry scanned on the device online: the device sends it and shows the issuer's answer. */
  | ({ kind: 'deviceIn' } & At)
  /** An exit scanned on the device online. */
  | ({ kind: 'deviceOut' } & At)
  /** A device undoes one of its own admissions (online or offline) online (`pick` among them all, from the latest). */
  | { kind: 'deviceUndo'; pick: number }
  /** The device uploads its queue (POST scans) and pulls the feed and the rules. */
  | { kind: 'sync'; device: number }
  /** A device undoes one of its online entries at the issuer (`pick` among them all, from the latest). */
  | { kind: 'annulOnline'; pick: number }
  /** A device undoes one of its own admissions, queued for its next upload (`pick` as for `deviceUndo`). */
  | { kind: 'annulQueued'; pick: number }
  /** The organizer undoes an entry of the scan log (`pick` among the counted ones, from the latest). */
  | { kind: 'annulAdmin'; pick: number }
  /** PUT ticket-types: a type's rules change. */
  | { kind: 'typeRules'; type: TypeName; rules: TypeRules }
  /** PATCH the event: re-entry or the automatic exit. */
  | { kind: 'eventSettings'; reentry?: boolean; auto_exit?: boolean }
  /** PATCH the event's calendar: its zone or its day start. */
  | { kind: 'calendar'; timezone?: string; day_starts_at?: string }
  /** The organizer revokes a ticket. */
  | { kind: 'revoke'; ticket: number }
  /** The next step that scans or undoes happens at the same instant as the last one (no time passes). */
  | { kind: 'together' }
  /** A short code typed on a device (online, or offline); `unknown`: one no ticket has. */
  | ({ kind: 'codeIn'; offline: boolean; unknown: boolean } & At)
  /**
   * A ticket's group on a device (the issuer's, or offline the roster's) and the members `mask`
   * chooses (bit n: the group's n-th ticket) checked in; online the device syncs right after.
   */
  | ({ kind: 'groupIn'; offline: boolean; mask: number } & At)
  /** A device's clock runs off by `seconds` (positive: ahead) from now on; it syncs, which measures it. */
  | { kind: 'skew'; device: number; seconds: number }
  /** The clock moves to the next start (`from`) or end (`until`) of a type's hours, `seconds` off it. */
  | { kind: 'edge'; type: TypeName; side: 'from' | 'until'; seconds: number };

export type StepKind = Step['kind'];

export interface History {
  setup: Setup;
  steps: Step[];
  /** The gate of the probe scans at the end. */
  probeGate: number;
}

/** A type without rules. */
export const NO_RULES: TypeRules = {
  reentry: null,
  max_entries: null,
  max_entries_per_day: null,
  min_minutes_between_entries: null,
  valid_days: null,
  hours: null,
};

/** A setup with defaults, for hand-written histories. */
export function setup(overrides: Partial<Setup> = {}): Setup {
  return {
    start: '2026-06-01T10:00:00.000Z',
    timezone: 'UTC',
    day_starts_at: '00:00',
    auto_exit: false,
    reentry: false,
    types: { A: NO_RULES, B: NO_RULES },
    tickets: ['A'],
    devices: 2,
    gates: [null],
    ...overrides,
  };
}
