/**
 * The font files a PDF export embeds (domain/exports/pdf/fonts.ts), as paths inside their npm
 * packages. The CDK bundling copies exactly these into the exports worker's `fonts/` folder
 * (lib/function.ts, `assets`), so the bundle does not inline several megabytes of fonts.
 *
 * - text: Noto Sans SC, Latin, Greek, Cyrillic, CJK ideographs and kana (SIL OFL 1.1);
 * - emoji: Noto Emoji, monochrome outlines (SIL OFL 1.1);
 * - fallback: UnifontEX, a glyph for nearly every other code point: Hangul, Hebrew, Arabic,
 *   Thai, Devanagari, symbols (SIL OFL 1.1 / GPL with font exception).
 */
export const PDF_FONT_FILES = {
  text: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
  emoji: '@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf',
  fallback: '@fontsource/unifontex/files/unifontex-latin-400-normal.woff',
} as const;

export type PdfFontRole = keyof typeof PDF_FONT_FILES;

/** Where the bundled copies go, next to the worker's index.mjs. */
export const PDF_FONT_DIR = 'fonts';
