/**
 * A web page as readable text: `@mozilla/readability` (Firefox's Reader View) picks the article
 * out of a `linkedom` document, `turndown` writes it as Markdown; a page without an article gives
 * its body's text, without scripts, styles and navigation.
 *
 * @module
 */
import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** How a page's text is written: Markdown (headings, links, lists kept) or plain text. */
export type PageFormat = 'markdown' | 'text';

/** A page made readable. */
export interface ReadablePage {
  /** The page's title (the article's when Readability found one), or null. */
  title: string | null;
  /** The readable text. */
  text: string;
  /** Whether Readability found an article (else `text` is the body's text). */
  article: boolean;
}

/** Elements whose text is never the page's content. */
const NOT_CONTENT =
  'script, style, noscript, template, svg, nav, header, footer, aside, form, iframe';

/** Elements after which plain text breaks the line. */
const BLOCKS =
  'p, div, br, li, dt, dd, tr, h1, h2, h3, h4, h5, h6, pre, blockquote, section, article, figure, figcaption, table, ul, ol, hr';

/**
 * Makes an HTML page readable. Readability runs only when its own check (`isProbablyReaderable`)
 * expects an article: on a short page it would keep navigation, so such a page gives its body
 * without scripts, styles, navigation, headers, footers and forms.
 *
 * @param html - the page's markup.
 * @param url - where it came from (relative links are made absolute against it).
 */
export function readablePage(html: string, url: string, format: PageFormat): ReadablePage {
  const source = withBase(html, url);
  const { document } = parseHTML(source);
  const pageTitle = clean(document.title ?? '') || null;
  if (isProbablyReaderable(document)) {
    const parsed = new Readability(document).parse();
    if (parsed?.content && parsed.textContent?.trim()) {
      return {
        title: clean(parsed.title ?? '') || pageTitle,
        text: render(parsed.content, format),
        article: true,
      };
    }
  }
  // Readability may have changed the document it read: parse the page again.
  const body = parseHTML(source).document.body;
  if (!body) return { title: pageTitle, text: '', article: false };
  for (const element of body.querySelectorAll(NOT_CONTENT)) element.remove();
  return { title: pageTitle, text: render(body.innerHTML, format), article: false };
}

/** Markup as Markdown, or as plain text with a line break after every block. */
function render(markup: string, format: PageFormat): string {
  if (format === 'markdown') return toMarkdown(markup);
  const { document } = parseHTML(`<!doctype html><html><body>${markup}</body></html>`);
  for (const element of document.querySelectorAll(BLOCKS))
    element.after(document.createTextNode('\n'));
  return tidy(document.body?.textContent ?? '');
}

/** Adds `<base href>` so Readability resolves relative links against the page's address. */
function withBase(html: string, url: string): string {
  if (/<base\s/i.test(html)) return html;
  const base = `<base href="${url.replace(/"/g, '&quot;')}">`;
  return /<head[^>]*>/i.test(html)
    ? html.replace(/<head[^>]*>/i, (head) => head + base)
    : base + html;
}

function toMarkdown(content: string): string {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  return turndown.turndown(content).trim();
}

/** Whitespace runs inside a line become one space; three or more line breaks become two. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
