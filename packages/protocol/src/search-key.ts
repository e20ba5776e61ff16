/** How holder names are searched: the issuer's search and a device's offline roster read names one way. */
/**
 * Letters that compatibility decomposition leaves whole, written as a person without them types
 * them (`lodz` for Łódź, `odegard` for Ødegård, `strasse` for Straße).
 */
const UNDECOMPOSED: Record<string, string> = {
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ß: 'ss',
  ı: 'i',
};
const UNDECOMPOSED_LETTERS = new RegExp(`[${Object.keys(UNDECOMPOSED).join('')}]`, 'gu');

/**
 * The one normalization of ticket search, applied to holder names as they are stored (the
 * `search_name` column, filled on insert) and to what an organizer types: compatibility
 * decomposition (NFKD), combining marks stripped, lower case, anything but letters and digits
 * dropped. So `jose` finds José, `obrien` finds O'Brien, `JOSÉ` finds Jose, and `ﬁ` finds "fi".
 * Lower-casing comes first: a few capitals lower to a letter and a combining mark (İ), which the
 * decomposition then splits off like any accent.
 */
export function searchKey(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(UNDECOMPOSED_LETTERS, (letter) => UNDECOMPOSED[letter]!)
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The words of a holder name, each as its `searchKey`, each after a space (the `search_words`
 * column): `% <key>%` then finds a name with a word that starts with the key, which the finder at the
 * gate ranks before a name that only contains it ("berg" finds Anna Berg before Heidelberger). Words
 * are split at spaces and dashes; other punctuation stays inside its word (O'Brien is one word, obrien).
 */
export function searchWords(text: string): string {
  return text
    .split(/[\s\p{Pd}]+/u)
    .map(searchKey)
    .filter((word) => word !== '')
    .map((word) => ` ${word}`)
    .join('');
}
