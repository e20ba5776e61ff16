/**
 * Migration 32 of the SQLite store: each event's email numbers kept, not counted. The console reads
 * them at every refresh of an event's page; counting them joined every ticket of the event to its
 * delivery (a whole event's rows, synchronously, at each read). Triggers keep them by the very
 * statement of each change, whichever code path made it: a ticket added, its email or revocation
 * changed, a delivery queued, sent, failed or queued again.
 *
 * A ticket counts when it has an email and is not revoked (the tickets a send can reach); its
 * delivery's status counts under the ticket's event while the ticket counts.
 */

/** The row of an event's numbers, bumped by `values` (eid, with_email, queued, sent, failed) when `where` holds. */
const bump = (values: string, from: string, where: string) => `
  INSERT INTO delivery_counts (eid, with_email, queued, sent, failed)
    SELECT ${values} ${from} WHERE ${where}
    ON CONFLICT (eid) DO UPDATE SET with_email = with_email + excluded.with_email,
      queued = queued + excluded.queued, sent = sent + excluded.sent, failed = failed + excluded.failed;`;

/** Whether a ticket row (`NEW`/`OLD`) counts. */
const counted = (row: string) => `(${row}.email IS NOT NULL AND ${row}.revoked_at IS NULL)`;

/** A ticket row's part in its event's numbers, times `sign` (its delivery's status read by tid). */
const ticketPart = (row: string, sign: number) => {
  const status = `(SELECT status FROM deliveries WHERE tid = ${row}.tid)`;
  const of = (name: string) => `${sign} * (coalesce(${status}, '') = '${name}')`;
  return bump(`${row}.eid, ${sign}, ${of('queued')}, ${of('sent')}, ${of('failed')}`, '', counted(row));
};

/** A delivery row's status in its ticket's event's numbers, times `sign`, while the ticket counts. */
const deliveryPart = (row: string, sign: number) => {
  const of = (name: string) => `${sign} * (${row}.status = '${name}')`;
  return bump(
    `t.eid, 0, ${of('queued')}, ${of('sent')}, ${of('failed')}`,
    'FROM tickets t',
    `t.tid = ${row}.tid AND ${counted('t')}`,
  );
};

export const DELIVERY_COUNT_SQLITE_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 32,
    sql: `
      CREATE TABLE delivery_counts (
        eid TEXT PRIMARY KEY,
        with_email INTEGER NOT NULL DEFAULT 0,
        queued INTEGER NOT NULL DEFAULT 0,
        sent INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO delivery_counts (eid, with_email, queued, sent, failed)
        SELECT t.eid, count(*), count(CASE WHEN d.status = 'queued' THEN 1 END),
               count(CASE WHEN d.status = 'sent' THEN 1 END), count(CASE WHEN d.status = 'failed' THEN 1 END)
          FROM tickets t LEFT JOIN deliveries d ON d.tid = t.tid
         WHERE ${counted('t')}
         GROUP BY t.eid;
      CREATE TRIGGER delivery_counts_ticket_added AFTER INSERT ON tickets WHEN ${counted('NEW')}
      BEGIN ${ticketPart('NEW', 1)} END;
      CREATE TRIGGER delivery_counts_ticket_changed AFTER UPDATE OF eid, email, revoked_at ON tickets
        WHEN ${counted('OLD')} IS NOT ${counted('NEW')} OR OLD.eid IS NOT NEW.eid
      BEGIN ${ticketPart('OLD', -1)} ${ticketPart('NEW', 1)} END;
      CREATE TRIGGER delivery_counts_ticket_removed AFTER DELETE ON tickets WHEN ${counted('OLD')}
      BEGIN ${ticketPart('OLD', -1)} END;
      CREATE TRIGGER delivery_counts_delivery_added AFTER INSERT ON deliveries
      BEGIN ${deliveryPart('NEW', 1)} END;
      CREATE TRIGGER delivery_counts_delivery_changed AFTER UPDATE OF tid, status ON deliveries
        WHEN OLD.status IS NOT NEW.status OR OLD.tid IS NOT NEW.tid
      BEGIN ${deliveryPart('OLD', -1)} ${deliveryPart('NEW', 1)} END;
      CREATE TRIGGER delivery_counts_delivery_removed AFTER DELETE ON deliveries
      BEGIN ${deliveryPart('OLD', -1)} END;
    `,
  },
];
