import type Papa from 'papaparse';

/**
 * CSV text for the exports, by papaparse (already the console's CSV reader): RFC 4180 quoting (a cell
 * with a comma, a quote, a line break or an edge space is quoted, quotes doubled), CRLF line ends.
 * A cell that a spreadsheet would take for a formula (it begins with `=`, `+`, `-` or `@`, or with a
 * tab or a carriage return, which some spreadsheets skip before one) gets a `'` in front, and is quoted.
 * papaparse's own pattern for that misses a cell with a line break in it, so ours is given.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell: text, a number, or nothing (null: an empty cell). */
export type Cell = string | number | boolean | null;

/** Rows of cells as CSV lines, each ended by CRLF (no header: the caller writes it once). */
export type CsvLines = (rows: Cell[][]) => string;

let papaparse: Promise<typeof Papa> | null = null;

/** The CSV writer, once papaparse is loaded: at the first export, not at start (an idle issuer never holds it). */
export async function csvWriter(): Promise<CsvLines> {
  papaparse ??= import('papaparse').then((module) => module.default);
  const papa = await papaparse;
  return (rows) =>
    rows.length === 0
      ? ''
      : `${papa.unparse(rows, { header: false, newline: '\r\n', escapeFormulae: FORMULA_START })}\r\n`;
}
