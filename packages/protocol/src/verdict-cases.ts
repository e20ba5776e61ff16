import type { CheckInOutcome } from './wire.ts';

/**
 * One situation at the gate and the outcome it must give. The issuer's `decide()` and the scanner's
 * offline verdict are both tested on this one table, so that they judge alike and in the same order:
 * signature, event, revocation (a superseded token included), the gate's admitted types, use, expiry.
 */
export interface VerdictCase {
  name: string;
  /** Whether the token's signature verifies against a published key. */
  signature: 'good' | 'bad';
  /** Whether the ticket belongs to the scanner's event. */
  event: 'same' | 'other';
  revoked: boolean;
  /** The token scanned was replaced by a reissue. */
  superseded: boolean;
  /** The ticket was already checked in (elsewhere, or earlier on this device). */
  checkedIn: boolean;
  /** The ticket's expiry is before the scan time. */
  expired: boolean;
  /**
   * The gate scanned at: not declared (or admitting every type), declared and admitting the ticket's
   * type, or declared without it.
   */
  gate: 'open' | 'admits' | 'refuses' | 'admitsOtherSpelling' | 'refusesOtherSpelling';
  /** The holder of a checked-in ticket went out since (an exit recorded after the entry). */
  wentOut?: boolean;
  /** The event lets a holder who went out in again. */
  reentry?: boolean;
  /** An exit scan instead of an entry. */
  exit?: boolean;
  /** The spec's outcome, the issuer's 403 refusal at a gate, or an exit's status. */
  outcome: CheckInOutcome | 'ticket_type_not_admitted' | 'checked_out' | 'not_inside';
}

const base = {
  signature: 'good',
  event: 'same',
  revoked: false,
  superseded: false,
  checkedIn: false,
  expired: false,
  gate: 'open',
} as const;

export const VERDICT_CASES: readonly VerdictCase[] = [
  { ...base, name: 'a fresh ticket is admitted', outcome: 'valid' },
  {
    ...base,
    name: 'a bad signature outranks everything',
    signature: 'bad',
    revoked: true,
    checkedIn: true,
    outcome: 'invalid_signature',
  },
  { ...base, name: 'a bad signature on a fresh ticket', signature: 'bad', outcome: 'invalid_signature' },
  { ...base, name: 'a ticket of another event', event: 'other', outcome: 'wrong_event' },
  { ...base, name: 'another event outranks revocation', event: 'other', revoked: true, outcome: 'wrong_event' },
  { ...base, name: 'a revoked ticket', revoked: true, outcome: 'revoked' },
  { ...base, name: 'revocation outranks use', revoked: true, checkedIn: true, outcome: 'revoked' },
  { ...base, name: 'a superseded token is revoked', superseded: true, outcome: 'revoked' },
  {
    ...base,
    name: 'a superseded token of a used ticket is revoked',
    superseded: true,
    checkedIn: true,
    outcome: 'revoked',
  },
  { ...base, name: 'a used ticket', checkedIn: true, outcome: 'already_used' },
  { ...base, name: 'use outranks expiry', checkedIn: true, expired: true, outcome: 'already_used' },
  { ...base, name: 'an expired ticket', expired: true, outcome: 'expired' },
  { ...base, name: 'revocation outranks expiry', revoked: true, expired: true, outcome: 'revoked' },
  { ...base, name: 'a gate that admits the ticket’s type', gate: 'admits', outcome: 'valid' },
  { ...base, name: 'a gate that does not admit the type', gate: 'refuses', outcome: 'ticket_type_not_admitted' },
  {
    ...base,
    name: 'the gate outranks use and expiry',
    gate: 'refuses',
    checkedIn: true,
    expired: true,
    outcome: 'ticket_type_not_admitted',
  },
  { ...base, name: 'revocation outranks the gate', gate: 'refuses', revoked: true, outcome: 'revoked' },
  { ...base, name: 'another event outranks the gate', gate: 'refuses', event: 'other', outcome: 'wrong_event' },
  { ...base, name: 'a used ticket at a gate that admits it', gate: 'admits', checkedIn: true, outcome: 'already_used' },
  // Admitted types are compared ignoring case and surrounding spaces, online and offline alike.
  {
    ...base,
    name: 'a gate that admits the type in another case, with spaces',
    gate: 'admitsOtherSpelling',
    outcome: 'valid',
  },
  {
    ...base,
    name: 'a gate that admits only other types, in any case',
    gate: 'refusesOtherSpelling',
    outcome: 'ticket_type_not_admitted',
  },
  // Re-entry: only a holder who went out, only where the event allows it.
  {
    ...base,
    name: 'with re-entry, a holder who went out comes in again',
    checkedIn: true,
    wentOut: true,
    reentry: true,
    outcome: 'valid',
  },
  {
    ...base,
    name: 'with re-entry, a holder inside is already in',
    checkedIn: true,
    reentry: true,
    outcome: 'already_used',
  },
  {
    ...base,
    name: 'without re-entry, a holder who went out stays out',
    checkedIn: true,
    wentOut: true,
    outcome: 'already_used',
  },
  {
    ...base,
    name: 'revocation outranks re-entry',
    checkedIn: true,
    wentOut: true,
    reentry: true,
    revoked: true,
    outcome: 'revoked',
  },
  // Exits: never refused for the gate or the expiry; a revoked ticket's holder is let out.
  {
    ...base,
    name: 'an exit of a holder inside',
    exit: true,
    checkedIn: true,
    gate: 'refuses',
    expired: true,
    outcome: 'checked_out',
  },
  { ...base, name: 'an exit of a ticket never used', exit: true, outcome: 'not_inside' },
  {
    ...base,
    name: 'an exit of a holder already out',
    exit: true,
    checkedIn: true,
    wentOut: true,
    outcome: 'not_inside',
  },
  { ...base, name: 'an exit of a revoked ticket', exit: true, checkedIn: true, revoked: true, outcome: 'revoked' },
  {
    ...base,
    name: 'an exit with a bad signature',
    exit: true,
    checkedIn: true,
    signature: 'bad',
    outcome: 'invalid_signature',
  },
  { ...base, name: 'an exit of another event’s ticket', exit: true, event: 'other', outcome: 'wrong_event' },
];

/** The ticket type of every table case, and the declared gate each `gate` value stands for. */
export const CASE_TICKET_TYPE = 'GA';
export const CASE_GATES = {
  open: null,
  admits: { gate_id: 'main', admits: ['GA', 'VIP'] },
  refuses: { gate_id: 'vip', admits: ['VIP'] },
  admitsOtherSpelling: { gate_id: 'north', admits: [' ga ', 'vip'] },
  refusesOtherSpelling: { gate_id: 'vip', admits: ['vip ', 'G A'] },
} as const;
