/**
 * Word-wrapping for the report's prose: a paragraph in lines that each fit, every word kept
 * once and in order. Breaks at spaces; a word wider than a whole line (a long id or hash) is
 * broken between characters instead of being cut off. Pure: the caller says what fits
 * (TextFitter.wrap measures with the fonts that draw each character).
 */

/** The code points of `word` as the longest leading pieces that fit, each on its own line. */
function breakWord(word: string, fits: (piece: string) => boolean): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const ch of word) {
    if (piece !== '' && !fits(piece + ch)) {
      pieces.push(piece);
      piece = '';
    }
    piece += ch;
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

/** `text`'s words (split at spaces) in lines for which `fits` holds; a line that cannot fit one character holds one. */
export function wrapWords(text: string, fits: (line: string) => boolean): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ').filter((w) => w !== '')) {
    const joined = current === '' ? word : `${current} ${word}`;
    if (fits(joined)) {
      current = joined;
      continue;
    }
    // The line so far is finished; the word starts the next one (broken up when it is wider than a line).
    if (current !== '') lines.push(current);
    const pieces = fits(word) ? [word] : breakWord(word, fits);
    current = pieces.pop() ?? '';
    lines.push(...pieces);
  }
  if (current !== '') lines.push(current);
  return lines;
}
