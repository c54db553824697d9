/**
 * What GitLab computes from a label's stored fields: colors (`Gitlab::Color`: a CSS color
 * name becomes upper-case `#RRGGBB`, hex is kept as given), the text color for contrast, and
 * `description_html` rendered from Markdown with raw HTML escaped.
 */
import { createRequire } from 'node:module';
import colorNames from 'color-name';
import type { Marked, Tokens } from 'marked';

const HEX_COLOR = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;

/** `#RGB`/`#RRGGBB` (kept as given) or a CSS color name (to `#RRGGBB`); undefined when neither. */
export function parseColor(raw: string): string | undefined {
  const text = raw.trim();
  const name = text.toLowerCase();
  if (Object.hasOwn(colorNames, name)) {
    return `#${colorNames[name]!.map((n) => n.toString(16).padStart(2, '0')).join('').toUpperCase()}`;
  }
  return HEX_COLOR.test(text) ? text : undefined;
}

/** `#333333` on light backgrounds (R+G+B > 500), else `#FFFFFF`, as GitLab's text_color_for_bg. */
export function textColorFor(color: string): string {
  const hex = color.slice(1);
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const sum = [0, 2, 4].reduce((acc, i) => acc + (parseInt(full.slice(i, i + 2), 16) || 0), 0);
  return sum > 500 ? '#333333' : '#FFFFFF';
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const SAFE_URL = /^(?:https?:|mailto:|ftp:|[/#?.]|[^:]*$)/i;

let markdown: Marked | null = null;

/**
 * One Markdown renderer for descriptions: raw HTML is shown as text, only safe link targets
 * are kept. Loaded on first use (synchronously, from marked's CommonJS build) so that
 * starting the server does not pay for it.
 */
function renderer(): Marked {
  if (markdown) return markdown;
  const { Marked: MarkedClass } = createRequire(import.meta.url)('marked') as typeof import('marked');
  markdown = new MarkedClass({
    gfm: true,
    async: false,
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(token.text);
      },
    },
    walkTokens(token) {
      if ((token.type === 'link' || token.type === 'image') && !SAFE_URL.test((token as Tokens.Link).href.trim())) {
        (token as Tokens.Link).href = '';
      }
    },
  });
  return markdown;
}

/** `description_html`: null when there is no description. */
export function renderDescription(description: string | null): string | null {
  if (!description) return null;
  return (renderer().parse(description, { async: false }) as string).trim();
}
