/**
 * Text whose short hyphenated words never break at a hyphen. Browsers may end a line after any
 * hyphen, so a command's `--force` or a tool name like `agent-ledger` could show as "-" and
 * "-force" on two lines; each such word (up to 24 characters) is kept on one line. Longer words
 * (URLs, paths, ids) still wrap wherever their box needs.
 */
const SHORT = 24;

export function Words({ text }: { text: string }) {
  const parts = text.split(/(\s+)/);
  return (
    <>
      {parts.map((part, i) =>
        part.includes('-') && [...part].length <= SHORT && !/\s/.test(part) ? (
          <span key={i} class="nobreak">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}
