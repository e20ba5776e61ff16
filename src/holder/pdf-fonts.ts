import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The fonts of the ticket PDF. pdfkit's standard fonts (Helvetica) encode WinAnsi only, so a holder
 * named "Łukasz Żółć" would lose letters: the PDF is set in DejaVu Sans where the machine has it
 * (Debian's and Ubuntu's fonts-dejavu-core, Fedora's dejavu-sans-fonts: Latin, Greek, Cyrillic and
 * more), with the first fallback that has a text's characters for a text it lacks (a CJK font, when
 * one is installed). A character no font has is drawn as "?" (the holder page, in the browser, shows
 * every name as written).
 */

const PRIMARY = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/TTF/DejaVuSans.ttf',
];
const FALLBACKS = [
  '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf',
  '/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf',
  '/usr/share/fonts/truetype/fonts-japanese-gothic.ttf',
];

/** The standard font, when no font file is found. */
export const STANDARD_FONT = 'Helvetica';

/** What fontkit tells of a font file: whether it draws a character. */
interface FontFile {
  hasGlyphForCodePoint(codePoint: number): boolean;
}

/** pdfkit's own copy of fontkit (resolved from pdfkit, so it is the one pdfkit embeds fonts with). */
function openFont(path: string): FontFile | null {
  try {
    const fromPdfkit = createRequire(createRequire(import.meta.url).resolve('pdfkit'));
    const fontkit = fromPdfkit('fontkit') as { openSync(path: string): FontFile };
    return fontkit.openSync(path);
  } catch {
    return null;
  }
}

/** WinAnsi's characters beyond Latin-1, which Helvetica draws too. */
const WIN_ANSI_EXTRA = new Set([...'€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'].map((c) => c.codePointAt(0)!));
const inWinAnsi = (cp: number) => (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WIN_ANSI_EXTRA.has(cp);

/** A font for the PDF: the file (or the standard font's name) and what it draws. */
interface PdfFont {
  name: string;
  draws: (codePoint: number) => boolean;
}

let found: PdfFont[] | null = null;

/** The fonts found on this machine, first the main one; read once. */
function fonts(): PdfFont[] {
  if (found !== null) return found;
  const files = [PRIMARY.find((path) => existsSync(path)), ...FALLBACKS.filter((path) => existsSync(path))];
  const opened = files.flatMap((path) => {
    const font = path === undefined ? null : openFont(path);
    return font === null ? [] : [{ name: path!, draws: (cp: number) => font.hasGlyphForCodePoint(cp) }];
  });
  found = opened.length > 0 ? opened : [{ name: STANDARD_FONT, draws: inWinAnsi }];
  return found;
}

/** A text as the PDF sets it: in the first font that draws all of it, else the main font with "?" for the rest. */
export function fontFor(text: string): { font: string; text: string } {
  const chars = [...text];
  const drawn = (font: PdfFont, c: string) => /\s/.test(c) || font.draws(c.codePointAt(0)!);
  const all = fonts();
  const whole = all.find((font) => chars.every((c) => drawn(font, c)));
  if (whole) return { font: whole.name, text };
  const main = all[0]!;
  return { font: main.name, text: chars.map((c) => (drawn(main, c) ? c : '?')).join('') };
}
