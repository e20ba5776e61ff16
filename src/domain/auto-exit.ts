/**
 * Automatic exit at the start of each event day (CONTRACT.md, "Entry rules for real events"), run by
 * every instance beside the request path, as the webhook upkeep is. Every second it looks at the events
 * with `auto_exit` on; for each, the day due is the event day `now` falls in, whose start is the latest
 * day start up to now, if that start came after the automatic exit took effect (the event's creation, or
 * the moment it was switched on: it never counts out at a day start that passed before). The store does
 * each event day once, whichever instance asks first, so the instances need not agree on anything. An
 * instance started after a day's start, or one that was down at it, does that day at its first look. A
 * store that cannot serve is tried again at the next look, said once; nothing here can stop a request.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { eventDayOf, eventDayStart } from '@ticket-issuer/protocol';
import type { AutoExitEvent } from '../store/auto-exit.ts';
import type { Store } from '../store/store.ts';
import { isStoreUnavailable } from '../store/unavailable.ts';
import type { Clock } from './clock.ts';
import { toStored } from './time.ts';

/** How often an instance looks (ms): well within the 60 s the contract allows after a day's start. */
export const AUTO_EXIT_LOOK_MS = 1000;

/** The event day whose automatic exit is due at `now`, and its start; null when none is. */
export function dueAutoExit(event: AutoExitEvent, now: Date): { day: string; at: Date } | null {
  const calendar = { timezone: event.timezone, day_starts_at: event.day_starts_at };
  const day = eventDayOf(now, calendar);
  const at = eventDayStart(day, calendar);
  return at.getTime() > Date.parse(event.since) ? { day, at } : null;
}

export interface AutoExitOptions {
  store: Store;
  clock: Clock;
  log: FastifyBaseLogger;
  /** How often to look (ms). */
  everyMs?: number;
}

export class AutoExitLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private storeFailing = false;
  /** The last day this instance saw done, by event (so that a look costs the store one read). */
  private done = new Map<string, string>();
  /** Events, or event days, whose fault was said already. */
  private readonly said = new Set<string>();
  private readonly everyMs: number;

  constructor(private readonly o: AutoExitOptions) {
    this.everyMs = o.everyMs ?? AUTO_EXIT_LOOK_MS;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops after the look under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.look().finally(() => (this.running = null));
    }, ms);
  }

  private async look(): Promise<void> {
    const now = this.o.clock.now();
    try {
      const events = await this.o.store.checkIns.listAutoExitEvents(toStored(now));
      const done = new Map<string, string>();
      for (const event of events) {
        if (this.stopped) break;
        const day = await this.runDue(event, now);
        if (day !== null) done.set(event.eid, day);
      }
      this.done = done;
      if (this.storeFailing) this.o.log.info('automatic exit: the store answers again');
      this.storeFailing = false;
    } catch (error) {
      if (!this.storeFailing) this.o.log.warn({ err: error }, 'automatic exit: the store cannot be used; retrying');
      this.storeFailing = true;
    }
    if (!this.stopped) this.schedule(this.everyMs);
  }

  /** Runs the event's due day unless seen done; the day now known done, if any. */
  private async runDue(event: AutoExitEvent, now: Date): Promise<string | null> {
    const seen = this.done.get(event.eid) ?? null;
    let due: { day: string; at: Date } | null;
    try {
      due = dueAutoExit(event, now);
    } catch (error) {
      this.sayOnce(event.eid, error, "automatic exit: the event's calendar cannot be read");
      return seen;
    }
    if (due === null || due.day === seen) return seen;
    try {
      const exited = await this.o.store.checkIns.runAutoExit({
        eid: event.eid,
        day: due.day,
        at: toStored(due.at),
        now: toStored(now),
      });
      if (exited !== null) {
        this.o.log.info({ eid: event.eid, day: due.day, exited }, 'automatic exit: holders inside counted out');
      }
      return due.day;
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      this.sayOnce(`${event.eid}/${due.day}`, error, 'automatic exit failed; retrying');
      return seen;
    }
  }

  private sayOnce(key: string, error: unknown, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.o.log.error({ err: error, key }, message);
  }
}

/** Starts this instance's automatic exit with the app and stops it (its look under way ended) on close. */
export function autoExit(app: FastifyInstance, options: Omit<AutoExitOptions, 'log'>): AutoExitLoop {
  const loop = new AutoExitLoop({ ...options, log: app.log.child({ component: 'auto-exit' }) });
  app.addHook('onReady', async () => loop.start());
  app.addHook('onClose', async () => loop.stop());
  return loop;
}
