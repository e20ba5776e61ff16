/**
 * Replays a history's steps on its world: scans through the single endpoints, offline scans and undos
 * on the devices, uploads by the devices' own sync, the organizer's undos, rule changes and
 * revocations through the admin API, and the clock moved by hand, the automatic exit run when the
 * history says the worker looks.
 */
import { randomUUID } from 'node:crypto';
import { eventDayOf, eventDayStart } from '@ticket-issuer/protocol';
import { dueAutoExit } from '../../src/domain/auto-exit.ts';
import { ADMIN_TOKEN, adminCall } from '../helpers/app.ts';
import type { Switch } from './generator.ts';
import { codeScan, edgeInstant, groupScan, skewClock } from './code-steps.ts';
import { deviceScan, deviceSync, deviceUndo } from './device-steps.ts';
import { keepUploadsYoung, latest, leftOut, scanLines, undoable } from './guards.ts';
import type { At, Step } from './history.ts';
import { calendarOf, dayPlus, putType, type World } from './world.ts';

/** Time between two steps that scan or undo: no two moves of a ticket share an instant. */
export const TICK_MS = 10_000;

/** A step's answer, kept for the report of a failing history. */
export type Said = string;

/** The issuer's automatic exit looks now, for this event only (what its worker does every second). */
export async function runWorker(world: World): Promise<Said> {
  const now = world.t.clock.now();
  const events = await world.store.checkIns.listAutoExitEvents(now.toISOString());
  const event = events.find((e) => e.eid === world.eid);
  if (event === undefined) return 'no automatic exit';
  const due = dueAutoExit(event, now);
  if (due === null) return 'nothing due';
  const exited = await world.store.checkIns.runAutoExit({
    eid: world.eid,
    day: due.day,
    at: due.at.toISOString(),
    now: now.toISOString(),
  });
  return `day ${due.day}: ${exited ?? 'done before'}`;
}

function scanBody(world: World, at: At, key: string) {
  const device = world.devices[at.device]!;
  const ticket = world.tickets[at.ticket]!;
  return {
    tid: ticket.tid,
    eid: world.eid,
    scanned_at: world.t.clock.now().toISOString(),
    scanner_id: device.scannerId,
    gate_id: world.gates[at.gate]!,
    idempotency_key: key,
    ticket_token: ticket.token,
  };
}

/** An online scan through the single endpoint; its status and outcome. */
async function online(world: World, at: At, path: 'check-in' | 'check-out'): Promise<Said> {
  const scan = scanBody(world, at, randomUUID());
  const res = await world.t.app.inject({
    method: 'POST',
    url: `/api/v1/tickets/${path}`,
    headers: { authorization: `Bearer ${world.devices[at.device]!.apiKey}` },
    payload: scan,
  });
  const body = res.json() as { status?: string; error?: { code: string; details: { reason?: string } } };
  if (res.statusCode >= 500) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  if (path === 'check-in' && body.status === 'valid') {
    world.onlineEntries.push({ device: at.device, key: scan.idempotency_key, tid: scan.tid, at: scan.scanned_at });
  }
  return `${res.statusCode} ${body.status ?? body.error?.details.reason ?? body.error?.code}`;
}

async function annulOnline(world: World, pick: number): Promise<Said> {
  const entry = latest(world.onlineEntries, pick);
  if (entry === undefined) return 'no online entry';
  const device = world.devices[entry.device]!;
  const res = await world.t.app.inject({
    method: 'POST',
    url: '/api/v1/tickets/check-in/annul',
    headers: { authorization: `Bearer ${device.apiKey}` },
    payload: {
      eid: world.eid,
      scanner_id: device.scannerId,
      idempotency_key: entry.key,
      annulled_at: world.t.clock.now().toISOString(),
    },
  });
  if (res.statusCode >= 500) throw new Error(`annul: ${res.statusCode} ${res.body}`);
  const body = res.json() as { status?: string; error?: { details: { reason?: string } } };
  return `${res.statusCode} ${body.status ?? body.error?.details.reason}`;
}

async function annulAdmin(world: World, pick: number): Promise<Said> {
  const scan = latest(undoable(await scanLines(world)), pick);
  if (scan === undefined) return 'no entry';
  const res = await world.t.app.inject({
    method: 'POST',
    url: `/admin/v1/events/${world.eid}/scans/${scan.scan_id}/annul`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: {},
  });
  if (res.statusCode >= 500) throw new Error(`admin annul: ${res.statusCode} ${res.body}`);
  const body = res.json() as { status?: string; error?: { details: { reason?: string } } };
  return `${res.statusCode} ${body.status ?? body.error?.details.reason}`;
}

type ClockStep = Step & { kind: 'wait' | 'nextDay' | 'edge' };

/**
 * Where a clock step moves the clock: on by some minutes, to the next event day's start and on, or
 * near the next edge of a type's hours (nowhere when it has none).
 */
async function clockMove(world: World, step: ClockStep): Promise<number> {
  const now = world.t.clock.now();
  if (step.kind === 'edge') return (await edgeInstant(world, step)) ?? now.getTime();
  if (step.kind === 'wait') return now.getTime() + step.minutes * 60_000;
  const cal = await calendarOf(world);
  return eventDayStart(dayPlus(eventDayOf(now, cal), 1), cal).getTime() + step.minutes * 60_000;
}

/** A clock step: devices whose scans would grow too old upload first (see guards.ts), the clock moves. */
async function moveClock(world: World, step: ClockStep, on: ReadonlySet<Switch>) {
  const to = await clockMove(world, step);
  const first = await keepUploadsYoung(world, to, on);
  world.t.clock.set(new Date(to));
  const worked = step.kind === 'nextDay' && step.worker ? `; worker: ${await runWorker(world)}` : '';
  return `${first ? `${first}; ` : ''}now ${world.t.clock.now().toISOString()}${worked}`;
}

/** PATCH the event (a refusal, such as hours no longer in order for a new day start, is an answer). */
async function patchEvent(world: World, settings: Record<string, unknown>): Promise<Said> {
  const res = await world.t.app.inject({
    method: 'PATCH',
    url: `/admin/v1/events/${world.eid}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: settings,
  });
  if (res.statusCode !== 200 && res.statusCode !== 400) throw new Error(`PATCH: ${res.statusCode} ${res.body}`);
  return res.statusCode === 200 ? 'patched' : `refused ${res.body}`;
}

/** Steps that move no ticket: no time passes before them. */
const STILL: readonly Step['kind'][] = [
  'wait',
  'nextDay',
  'edge',
  'worker',
  'typeRules',
  'eventSettings',
  'calendar',
  'together',
];

/** Runs one step (unless the switches leave it out); what it answered. */
export async function runStep(world: World, step: Step, on: ReadonlySet<Switch>): Promise<Said> {
  const skipped = await leftOut(world, step, on);
  if (skipped !== null) return skipped;
  if (!STILL.includes(step.kind)) {
    if (!world.together) world.t.clock.advance(TICK_MS);
    world.together = false;
  }
  switch (step.kind) {
    case 'wait':
    case 'nextDay':
    case 'edge':
      return moveClock(world, step, on);
    case 'worker':
      return runWorker(world);
    case 'checkIn':
      return online(world, step, 'check-in');
    case 'checkOut':
      return online(world, step, 'check-out');
    case 'offlineIn':
    case 'offlineOut':
    case 'deviceIn':
    case 'deviceOut':
      return deviceScan(world, step);
    case 'sync':
      return deviceSync(world, step.device);
    case 'annulOnline':
      return annulOnline(world, step.pick);
    case 'annulQueued':
    case 'deviceUndo':
      return deviceUndo(world, step.pick, step.kind === 'annulQueued');
    case 'annulAdmin':
      return annulAdmin(world, step.pick);
    case 'typeRules':
      return (await putType(world, step.type, step.rules)) ? 'declared' : 'refused';
    case 'eventSettings':
    case 'calendar': {
      const { kind: _, ...settings } = step;
      return patchEvent(world, settings);
    }
    case 'together':
      world.together = true;
      return 'the next move at the same instant';
    case 'codeIn':
      return codeScan(world, step);
    case 'groupIn':
      return groupScan(world, step);
    case 'skew':
      return skewClock(world, step);
    case 'revoke':
      await adminCall(world.t.app, 'POST', `/admin/v1/tickets/${world.tickets[step.ticket]!.tid}/revoke`, {});
      return 'revoked';
  }
}
