import type { Clock } from '../domain/clock.ts';

/** One audit entry a minute, at most, for each held email or address. */
const DIGEST_MS = 60_000;
/** Held emails and addresses remembered at once (the least recently refused are forgotten first). */
const REMEMBERED = 10_000;

/** Writes the audit entry of `count` refused attempts. */
type Write = (count: number) => Promise<void>;

interface Digest {
  /** When the last entry was written (ms). */
  writtenAt: number;
  /** Refusals since that entry, not written yet, and the writer of the latest of them. */
  pending: number;
  write: Write;
}

/**
 * Refused attempts of a held email or address, summarized in the audit trail: a flood against a hold
 * would otherwise write a row per attempt (2,000 attempts, 2,000 rows). The first refusal of a key is
 * written at once; the ones that follow within the minute are counted, and written as one entry with
 * the next refusal after the minute (its `details.count`: the refusals it stands for), or when the
 * instance stops. Per instance, in memory, and bounded.
 */
export class RefusalDigest {
  private readonly digests = new Map<string, Digest>();

  constructor(private readonly clock: Clock) {}

  async refused(key: string, write: Write): Promise<void> {
    const now = this.clock.now().getTime();
    const digest = this.digests.get(key);
    if (digest !== undefined && now - digest.writtenAt < DIGEST_MS) {
      digest.pending += 1;
      digest.write = write;
      return;
    }
    const count = 1 + (digest?.pending ?? 0);
    this.digests.delete(key);
    this.digests.set(key, { writtenAt: now, pending: 0, write });
    if (this.digests.size > REMEMBERED) this.forgetOldest();
    await write(count);
  }

  /** Writes what is counted and not written yet (the instance stops). */
  async flush(): Promise<void> {
    const pending = [...this.digests.values()].filter((digest) => digest.pending > 0);
    this.digests.clear();
    await Promise.all(pending.map((digest) => digest.write(digest.pending).catch(() => undefined)));
  }

  private forgetOldest(): void {
    const [key, digest] = this.digests.entries().next().value as [string, Digest];
    this.digests.delete(key);
    if (digest.pending > 0) void digest.write(digest.pending).catch(() => undefined);
  }
}
