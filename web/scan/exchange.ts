/**
 * One exchange of the gate with the scanner (a scan, an undo, a check-in, a question by name), and what
 * it says of the link to the issuer: whether it answered, whether it refused the key, what to sync.
 */
import type { IssuerContact, Scanner } from '@ticket-issuer/scanner';
import type { Connection } from './connection.ts';

export class Exchange {
  /** `scanner`: the enrolled scanner (throws when not enrolled); `changed`: the device's state changed. */
  constructor(
    private readonly scanner: () => Scanner,
    private readonly link: Connection,
    private readonly changed: () => void,
  ) {}

  /**
   * One exchange at the gate (a scan, an undo, a check-in by name), `offline` when the issuer is not to
   * be asked: a refused key stops the device, what came of asking the issuer (`contact`) says whether
   * it answers, and what the exchange queued is sent soon.
   */
  async act<T>(
    work: (scanner: Scanner, offline: boolean) => Promise<T>,
    contact: (result: T, offline: boolean) => IssuerContact | null,
  ): Promise<T> {
    const scanner = this.scanner();
    const offline = this.link.offline;
    let result: T;
    try {
      result = await work(scanner, offline);
    } catch (error) {
      this.link.failed(error);
      throw error;
    }
    this.link.contact(contact(result, offline));
    this.changed();
    this.link.queueChanged();
    return result;
  }

  /**
   * A question for the issuer that the roster answers when it cannot (`source: 'roster'`): an answer of
   * the roster while the issuer was to be asked says it did not answer.
   */
  async ask<T extends { source?: 'issuer' | 'roster' }>(
    work: (scanner: Scanner, offline: boolean) => Promise<T>,
  ): Promise<T> {
    const offline = this.link.offline;
    try {
      const answer = await work(this.scanner(), offline);
      this.link.contact(answer.source === 'roster' ? (offline ? null : 'failed') : 'answered');
      return answer;
    } catch (error) {
      this.link.failed(error);
      throw error;
    } finally {
      this.changed();
    }
  }
}
