/**
 * The font files a PDF export embeds (domain/exports/pdf/fonts.ts), as paths inside their npm
 * packages. The CDK bundling copies exactly these into the exports worker's `fonts/` folder
 * (lib/function.ts, `bundleAssets`), so the bundle does not inline megabytes of fonts.
 *
 * unicode: UnifontEX (SIL OFL 1.1), a glyph for nearly every code point: CJK, Hangul, Hebrew,
 * Arabic, Thai, Devanagari, symbols and emoji (monochrome). Text the standard Helvetica can
 * encode (WinAnsi) is drawn with Helvetica. Noto Sans SC and Noto Emoji were tried first:
 * pdf-lib's subsetting (through @pdf-lib/fontkit) drops most of their glyphs, and embedding
 * them whole costs 6 MB per report; UnifontEX subsets correctly.
 */
export const PDF_FONT_FILES = {
  unicode: '@fontsource/unifontex/files/unifontex-latin-400-normal.woff',
} as const;

export type PdfFontFile = keyof typeof PDF_FONT_FILES;

/** Where the bundled copies go, next to the worker's index.mjs. */
export const PDF_FONT_DIR = 'fonts';
