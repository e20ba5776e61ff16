/**
 * An outbox in memory for the worker's tests: items claimed under a lease with a fresh token each
 * time, results recorded only under the token that claimed them (what both stores guarantee, see the
 * conformance suites), and a sender whose attempts a test holds and lets go.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Room, Sender } from '../../src/outbox/sender.ts';

export interface Item {
  id: string;
  group: string;
  token: string;
}

export interface Result {
  id: string;
  token: string;
  by: string;
}

interface Row {
  id: string;
  group: string;
  state: 'pending' | 'done';
  token: string | null;
  leased: boolean;
  by: string | null;
}

export class FakeOutbox {
  readonly rows = new Map<string, Row>();
  private tokens = 0;
  /** Results offered to record, in the order they came, recorded or not. */
  readonly offered: Result[] = [];
  /** Calls of record that are still to fail. */
  failRecords = 0;
  failClaims = 0;

  add(id: string, group = 'g'): void {
    this.rows.set(id, { id, group, state: 'pending', token: null, leased: false, by: null });
  }

  /** Every live lease ends (as time passing would end it). */
  expireLeases(): void {
    for (const row of this.rows.values()) row.leased = false;
  }

  claim(room: Room): Item[] {
    if (this.failClaims > 0) {
      this.failClaims -= 1;
      throw new Error('store down');
    }
    const free = new Map(room.groups.map((g) => [g.group, g.free]));
    const taken: Item[] = [];
    for (const row of this.rows.values()) {
      if (taken.length >= room.limit) break;
      if (row.state !== 'pending' || row.leased) continue;
      const left = free.get(row.group) ?? room.perGroup;
      if (left <= 0) continue;
      free.set(row.group, left - 1);
      row.leased = true;
      row.token = `t${++this.tokens}`;
      taken.push({ id: row.id, group: row.group, token: row.token });
    }
    return taken;
  }

  record(results: Result[]): void {
    if (this.failRecords > 0) {
      this.failRecords -= 1;
      throw new Error('store down');
    }
    for (const r of results) {
      this.offered.push(r);
      const row = this.rows.get(r.id)!;
      if (row.token !== r.token) continue; // another claim holds it now
      row.state = 'done';
      row.leased = false;
      row.token = null;
      row.by = r.by;
    }
  }

  done(): string[] {
    return [...this.rows.values()].filter((r) => r.state === 'done').map((r) => r.id);
  }
}

/** A sender on a FakeOutbox whose attempts end when the test lets them (or at once with `auto`). */
export class HeldSender implements Sender<Item, Result> {
  readonly name = 'test outbox';
  readonly held = new Map<string, () => void>();
  underWay = 0;
  mostUnderWay = 0;
  claims: Room[] = [];
  purges = 0;
  purgeFull = 0;
  /** How long each claim takes (ms). */
  claimMs = 0;

  constructor(
    private readonly outbox: FakeOutbox,
    readonly by: string,
    private readonly auto = false,
  ) {}

  async claim(room: Room): Promise<Item[]> {
    this.claims.push(room);
    if (this.claimMs > 0) await new Promise((resolve) => setTimeout(resolve, this.claimMs));
    return this.outbox.claim(room);
  }

  group(item: Item): string {
    return item.group;
  }

  async attempt(item: Item): Promise<Result> {
    this.underWay += 1;
    this.mostUnderWay = Math.max(this.mostUnderWay, this.underWay);
    if (this.auto) await new Promise((resolve) => setTimeout(resolve, 2));
    else await new Promise<void>((resolve) => this.held.set(item.id, resolve));
    this.underWay -= 1;
    return { id: item.id, token: item.token, by: this.by };
  }

  /** Lets the attempt of `id` end. */
  release(id: string): void {
    const release = this.held.get(id);
    if (release === undefined) throw new Error(`${id} is not under way`);
    this.held.delete(id);
    release();
  }

  async record(results: Result[]): Promise<void> {
    this.outbox.record(results);
  }

  async purge(): Promise<boolean> {
    this.purges += 1;
    if (this.purgeFull > 0) {
      this.purgeFull -= 1;
      return true;
    }
    return false;
  }
}

/** A logger that keeps its lines. */
export function memoryLog(): { log: FastifyBaseLogger; lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      const msg = args.find((a): a is string => typeof a === 'string') ?? '';
      lines.push({ level, msg });
    };
  const log = {
    level: 'info',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: at('silent'),
    child: () => log,
  };
  return { log: log as unknown as FastifyBaseLogger, lines };
}
