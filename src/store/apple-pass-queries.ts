/** SQL of the Apple Wallet store shared by both backends (`?` placeholders; PostgreSQL numbers them). */

export const INSERT_REGISTRATION_SQL = `INSERT INTO apple_pass_registrations (device_id, pass_type_id, serial, push_token, created_at)
  VALUES (?, ?, ?, ?, ?) ON CONFLICT (device_id, pass_type_id, serial) DO NOTHING`;

export const UPDATE_PUSH_TOKEN_SQL = `UPDATE apple_pass_registrations SET push_token = ?
  WHERE device_id = ? AND pass_type_id = ? AND serial = ?`;

export const DELETE_REGISTRATION_SQL = `DELETE FROM apple_pass_registrations
  WHERE device_id = ? AND pass_type_id = ? AND serial = ?`;

/** A pass's last change: its mark, or its ticket's issue. */
const CHANGED_AT = 'COALESCE(c.changed_at, t.issued_at)';

export const LIST_SERIALS_SQL = `SELECT r.serial, ${CHANGED_AT} AS changed_at
  FROM apple_pass_registrations r
  JOIN tickets t ON t.tid = r.serial
  LEFT JOIN apple_pass_changes c ON c.tid = r.serial
  WHERE r.device_id = ? AND r.pass_type_id = ? AND ${CHANGED_AT} > ?
  ORDER BY r.serial`;

export const PASS_CHANGED_AT_SQL = `SELECT ${CHANGED_AT} AS changed_at
  FROM tickets t LEFT JOIN apple_pass_changes c ON c.tid = t.tid WHERE t.tid = ?`;

/** What a claim answers of each push it leases (see lease-tables.ts). */
export const CLAIMED_PUSH_COLUMNS = 'push_id, push_token, pass_type_id, attempts, lease_owner';

export const FINISH_SENT_SQL = `UPDATE apple_pushes SET state = 'sent', attempts = attempts + 1, lease_until = NULL,
  last_error = NULL, ended_at = ? WHERE push_id = ? AND lease_owner = ? AND state = 'pending'`;

export const FINISH_FAILED_SQL = `UPDATE apple_pushes SET state = 'failed', attempts = attempts + 1, lease_until = NULL,
  last_error = ?, ended_at = ? WHERE push_id = ? AND lease_owner = ? AND state = 'pending'`;

export const FINISH_RETRY_SQL = `UPDATE apple_pushes SET attempts = attempts + 1, lease_until = NULL, last_error = ?,
  next_attempt_at = ? WHERE push_id = ? AND lease_owner = ? AND state = 'pending'`;

export const DELETE_REGISTRATIONS_OF_PUSH_SQL = `DELETE FROM apple_pass_registrations
  WHERE push_token = (SELECT push_token FROM apple_pushes WHERE push_id = ?)`;

export const LIST_PUSHES_SQL = `SELECT push_id, state, attempts, last_error FROM apple_pushes
  WHERE push_token = ? ORDER BY seq`;

/** The oldest change time: `since` when a device asks for everything. */
export const BEGINNING = '';
