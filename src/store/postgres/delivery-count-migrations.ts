/**
 * Migration 32 of the PostgreSQL store: each event's email numbers kept, as SQLite's version 32
 * explains. Statements that write many rows at once (an import of tickets, a send that queues an
 * event's emails) bump each event's row once per statement, from the statement's transition tables:
 * a row updated once per ticket in one transaction would leave a version of it per ticket. A ticket's
 * email or revocation changes one row at a time, by a row trigger whose condition leaves every other
 * update of a ticket (a check-in) without a call.
 */

/** Adds the sums of `source` (eid, with_email, queued, sent, failed; any rows per eid) to each event's row. */
const bump = (source: string) => `
    INSERT INTO delivery_counts AS c (eid, with_email, queued, sent, failed)
      SELECT eid, sum(with_email), sum(queued), sum(sent), sum(failed) FROM (${source}) s GROUP BY eid
      HAVING sum(with_email) <> 0 OR sum(queued) <> 0 OR sum(sent) <> 0 OR sum(failed) <> 0
      ON CONFLICT (eid) DO UPDATE SET with_email = c.with_email + excluded.with_email,
        queued = c.queued + excluded.queued, sent = c.sent + excluded.sent, failed = c.failed + excluded.failed;`;

/** Whether a ticket row counts (an email, not revoked). */
const counted = (row: string) => `(${row}.email IS NOT NULL AND ${row}.revoked_at IS NULL)`;

/** One ticket row of a row trigger (`OLD`/`NEW`) as a row source. */
const one = (row: string) => `(SELECT ${row}.tid, ${row}.eid, ${row}.email, ${row}.revoked_at)`;

/** The parts of the ticket rows of `rows` (alias t) that count, times `sign`, with their deliveries' statuses. */
const ticketParts = (rows: string, sign: number) => {
  const of = (name: string) => `${sign} * (CASE WHEN d.status = '${name}' THEN 1 ELSE 0 END)`;
  return `SELECT t.eid, ${sign} AS with_email, ${of('queued')} AS queued, ${of('sent')} AS sent, ${of('failed')} AS failed
    FROM ${rows} t LEFT JOIN deliveries d ON d.tid = t.tid WHERE ${counted('t')}`;
};

/** The statuses of the delivery rows of `rows` (alias d) whose ticket counts, times `sign`. */
const deliveryParts = (rows: string, sign: number) => {
  const of = (name: string) => `${sign} * (CASE WHEN d.status = '${name}' THEN 1 ELSE 0 END)`;
  return `SELECT t.eid, 0 AS with_email, ${of('queued')} AS queued, ${of('sent')} AS sent, ${of('failed')} AS failed
    FROM ${rows} d JOIN tickets t ON t.tid = d.tid WHERE ${counted('t')}`;
};

export const DELIVERY_COUNT_POSTGRES_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 32,
    sql: `
      CREATE TABLE delivery_counts (
        eid TEXT COLLATE "C" PRIMARY KEY,
        with_email BIGINT NOT NULL DEFAULT 0,
        queued BIGINT NOT NULL DEFAULT 0,
        sent BIGINT NOT NULL DEFAULT 0,
        failed BIGINT NOT NULL DEFAULT 0
      );
      INSERT INTO delivery_counts (eid, with_email, queued, sent, failed)
        SELECT t.eid, count(*), count(*) FILTER (WHERE d.status = 'queued'),
               count(*) FILTER (WHERE d.status = 'sent'), count(*) FILTER (WHERE d.status = 'failed')
          FROM tickets t LEFT JOIN deliveries d ON d.tid = t.tid
         WHERE ${counted('t')}
         GROUP BY t.eid;

      CREATE FUNCTION delivery_counts_tickets_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${bump(ticketParts('added', 1))}
        RETURN NULL;
      END $$;
      CREATE TRIGGER delivery_counts_tickets_added AFTER INSERT ON tickets
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_tickets_added();

      CREATE FUNCTION delivery_counts_ticket_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN ${bump(ticketParts(one('OLD'), -1))}
        ELSE ${bump(`${ticketParts(one('OLD'), -1)} UNION ALL ${ticketParts(one('NEW'), 1)}`)}
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER delivery_counts_ticket_changed AFTER UPDATE OF eid, email, revoked_at ON tickets
        FOR EACH ROW WHEN (${counted('OLD')} IS DISTINCT FROM ${counted('NEW')} OR OLD.eid IS DISTINCT FROM NEW.eid)
        EXECUTE FUNCTION delivery_counts_ticket_changed();
      CREATE TRIGGER delivery_counts_ticket_removed AFTER DELETE ON tickets
        FOR EACH ROW EXECUTE FUNCTION delivery_counts_ticket_changed();

      CREATE FUNCTION delivery_counts_deliveries_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${bump(deliveryParts('added', 1))}
        ELSIF TG_OP = 'DELETE' THEN ${bump(deliveryParts('removed', -1))}
        ELSE ${bump(`${deliveryParts('removed', -1)} UNION ALL ${deliveryParts('added', 1)}`)}
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER delivery_counts_deliveries_added AFTER INSERT ON deliveries
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_deliveries_changed();
      CREATE TRIGGER delivery_counts_deliveries_changed AFTER UPDATE ON deliveries
        REFERENCING OLD TABLE AS removed NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_deliveries_changed();
      CREATE TRIGGER delivery_counts_deliveries_removed AFTER DELETE ON deliveries
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_deliveries_changed();
    `,
  },
];
