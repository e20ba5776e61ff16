/**
 * Reads a ticket CSV (header `holder_name,ticket_type`, optionally `expires_at`, `external_id`,
 * `valid_from`, `attention`, `checkin_text`, `email` and `order_ref`, in any order) and checks every line before
 * anything is sent, by the rules the admin API applies, so that a file is imported whole or not at
 * all. Pure: the CSV parser (Papa Parse) is passed in, so this also runs under Node's test runner.
 */

/** The admin API takes up to this many tickets in one all-or-nothing request. */
export const MAX_TICKETS_PER_REQUEST = 10_000;

const REQUIRED_COLUMNS = ['holder_name', 'ticket_type'];
const OPTIONAL_COLUMNS = ['expires_at', 'external_id', 'valid_from', 'attention', 'checkin_text', 'email', 'order_ref'];
/** How an `attention` cell may say yes or no (any case); an empty cell is no. */
const ATTENTION_WORDS = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['0', false],
]);

/** What is wrong with a header row, or null: the two required columns, optional ones, each once. */
function headerProblem(columns) {
  const known = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];
  const fine =
    REQUIRED_COLUMNS.every((name) => columns.includes(name)) &&
    columns.every((name) => known.includes(name)) &&
    new Set(columns).size === columns.length;
  return fine ? null : `the header must name holder_name and ticket_type, and may add ${OPTIONAL_COLUMNS.join(', ')}`;
}

/** The issuer refuses control characters (U+0000–U+001F, U+007F) in text fields. */
const hasControlCharacter = (text) =>
  [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]00:?00)$/i;

/** An ISO 8601 UTC instant naming a real calendar time, as the issuer requires. */
function isUtcInstant(value) {
  const match = ISO_UTC.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
}

/** A problem of one text field, or null. */
function textProblem(name, value, maxLength) {
  if (value === '') return `${name} is empty`;
  if (value.length > maxLength) return `${name} is longer than ${maxLength} characters`;
  if (hasControlCharacter(value)) return `${name} contains a control character`;
  return null;
}

function instantProblem(name, value) {
  if (value === '') return null;
  return isUtcInstant(value) ? null : `${name} "${value}" is not an ISO 8601 UTC time such as 2026-07-01T23:00:00Z`;
}

/** A ticket valid only from after it expires would never be valid (the issuer refuses it too). */
function windowProblem(validFrom, expires) {
  if (!validFrom || !expires || Date.parse(validFrom) < Date.parse(expires)) return null;
  return 'valid_from must be before expires_at';
}

function attentionProblem(value) {
  if (value === undefined || value === '' || ATTENTION_WORDS.has(value.toLowerCase())) return null;
  return `attention "${value}" is not one of true, false, yes, no, 1, 0 (or empty)`;
}

/** As the issuer judges a ticket's email: at most 254 characters, one @ with something on each side, no spaces. */
const EMAIL_SHAPE = /^[^@\s\p{Cc}]+@[^@\s\p{Cc}]+$/u;

function emailProblem(value) {
  if (!value) return null;
  return value.length <= 254 && EMAIL_SHAPE.test(value) ? null : `email "${value}" is not an email address`;
}

/** The optional columns of the entry rules, gate notes and email, as the admin API takes them (empty: left out). */
function rulesOf({ valid_from: validFrom, attention, checkin_text: text, email, order_ref: orderRef }) {
  return {
    ...(orderRef ? { order_ref: orderRef } : {}),
    ...(validFrom ? { valid_from: validFrom } : {}),
    ...(attention ? { attention: ATTENTION_WORDS.get(attention.toLowerCase()) } : {}),
    ...(text ? { checkin_text: text } : {}),
    ...(email ? { email } : {}),
  };
}

/** The ticket of one data row, or what is wrong with it. */
function readRow(row, columns) {
  if (row.length !== columns.length) {
    return { problem: `expected ${columns.length} fields (${columns.join(',')}), found ${row.length}` };
  }
  const value = Object.fromEntries(columns.map((name, i) => [name, row[i].trim()]));
  const { holder_name: holder, ticket_type: type, expires_at: expires = '', external_id: externalId } = value;
  const { valid_from: validFrom = '', attention, checkin_text: text } = value;
  const problem =
    textProblem('holder_name', holder, 200) ??
    textProblem('ticket_type', type, 100) ??
    instantProblem('expires_at', expires) ??
    (externalId === undefined ? null : textProblem('external_id', externalId, 100)) ??
    instantProblem('valid_from', validFrom) ??
    windowProblem(validFrom, expires) ??
    attentionProblem(attention) ??
    (text ? textProblem('checkin_text', text, 200) : null) ??
    emailProblem(value.email) ??
    (value.order_ref ? textProblem('order_ref', value.order_ref, 64) : null);
  if (problem) return { problem };
  return {
    ticket: {
      holder_name: holder,
      ticket_type: type,
      ...(expires ? { expires_at: expires } : {}),
      ...(externalId === undefined ? {} : { external_id: externalId }),
      ...rulesOf(value),
    },
  };
}

/** An external_id given twice in one file would be one ticket: the later lines are problems. */
function repeatedIds(tickets) {
  const firstLine = new Map();
  const problems = [];
  for (const ticket of tickets) {
    if (ticket.external_id === undefined) continue;
    const earlier = firstLine.get(ticket.external_id);
    if (earlier === undefined) firstLine.set(ticket.external_id, ticket.line);
    else problems.push({ line: ticket.line, message: `external_id "${ticket.external_id}" is on line ${earlier} too` });
  }
  return problems;
}

/**
 * Parses and checks a whole file. Line numbers are the file's own (the header is line 1; a quoted
 * field spanning lines moves the count on). Returns the tickets with their lines, the problems, and the
 * header's columns.
 */
export function readTicketsCsv(text, Papa) {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const parsed = Papa.parse(normalized, { delimiter: ',', newline: '\n', skipEmptyLines: false });
  const lines = [];
  let line = 1;
  for (const row of parsed.data) {
    lines.push(line);
    line += 1 + row.reduce((breaks, value) => breaks + value.split('\n').length - 1, 0);
  }
  const problems = parsed.errors.map((error) => ({
    line: lines[error.row] ?? line,
    message: error.message,
  }));
  const [header = [], ...rows] = parsed.data;
  const columns = header.map((name) => name.trim().toLowerCase());
  const wrongHeader = headerProblem(columns);
  if (wrongHeader) {
    problems.unshift({ line: 1, message: wrongHeader });
    return { tickets: [], problems, columns };
  }
  const tickets = [];
  rows.forEach((row, i) => {
    if (row.length === 1 && row[0].trim() === '') return;
    const read = readRow(row, columns);
    if (read.problem) problems.push({ line: lines[i + 1], message: read.problem });
    else tickets.push({ ...read.ticket, line: lines[i + 1] });
  });
  problems.push(...repeatedIds(tickets));
  if (tickets.length === 0 && problems.length === 0) problems.push({ line: 2, message: 'the file holds no tickets' });
  problems.sort((a, b) => a.line - b.line);
  return { tickets, problems, columns };
}

/** Splits the tickets into requests the admin API accepts whole. */
export function batches(tickets, size = MAX_TICKETS_PER_REQUEST) {
  const result = [];
  for (let i = 0; i < tickets.length; i += size) result.push(tickets.slice(i, i + size));
  return result;
}
