/**
 * Layout faults a person sees at once, measured in the page (the console's browser tests run
 * it at a desktop and a phone width): the page scrolling sideways, a short word broken across
 * two lines ("WebFetc / h", "- / -force"), and a text box squeezed to one character a line.
 * A long identifier or hash may wrap on a phone; a word of 16 characters or fewer never needs to.
 */
import type { Page } from 'playwright-core';

/** Words up to this length must fit on one line wherever they are drawn. */
const SHORT_WORD = 16;

/**
 * The measurement, run in the page: plain JavaScript in a string, so that this file needs no
 * DOM types (the Node test code is type-checked without them).
 */
const PROBE = `(shortWord) => {
    const problems = [];
    const describe = (el) => {
      if (!el) return '?';
      const cls = typeof el.className === 'string' && el.className !== '' ? \`.\${el.className.trim().split(/\\s+/).join('.')}\` : '';
      return \`<\${el.tagName.toLowerCase()}\${cls}>\`;
    };
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) {
      // Name the elements that stick out, outside any box that scrolls on its own.
      const scrolls = (el) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
      const wide = [...document.body.querySelectorAll('*')]
        .filter((el) => {
          const rect = el.getBoundingClientRect();
          if (rect.width === 0 || rect.right <= root.clientWidth + 1) return false;
          for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) if (scrolls(up)) return false;
          return true;
        })
        .slice(-3)
        .map((el) => \`\${describe(el)} to \${Math.round(el.getBoundingClientRect().right)}px\`);
      problems.push(\`the page scrolls sideways: \${root.scrollWidth}px in \${root.clientWidth}px (\${wide.join(', ')})\`);
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const seen = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // Text not drawn: a closed <details> keeps its content laid out, out of sight.
      if (!parent || parent.closest('svg, script, style, .visually-hidden, [hidden], details:not([open]) > :not(summary)')) continue;
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/\\S+/g)) {
        const word = match[0];
        if ([...word].length < 2 || [...word].length > shortWord) continue;
        range.setStart(node, match.index ?? 0);
        range.setEnd(node, (match.index ?? 0) + word.length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        const key = \`\${word} \${describe(parent)}\`;
        if (lines.size > 1 && !seen.has(key)) {
          seen.add(key);
          problems.push(\`"\${word}" is broken over \${lines.size} lines in \${describe(parent)}\`);
        }
      }
    }
    for (const el of document.body.querySelectorAll('*')) {
      if (el.closest('svg, details:not([open]) > :not(summary)')) continue;
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? '').join('').trim();
      if (own.length < 4) continue;
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const size = parseFloat(style.fontSize) || 16;
      if (rect.width > 0 && rect.width < 1.6 * size && rect.height > 3.5 * size) problems.push(\`\${describe(el)} is \${Math.round(rect.width)}px wide for "\${own.slice(0, 24)}": one character a line\`);
    }
    return problems;
}`;

/** Each fault on the page as it stands, described with the element it is in. */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(`(${PROBE})(${SHORT_WORD})`) as Promise<string[]>;
}

export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
export type WidthName = keyof typeof WIDTHS;
