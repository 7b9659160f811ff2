/**
 * A web page as readable text: `@mozilla/readability` (Firefox's Reader View) picks the article
 * out of a `linkedom` document, `turndown` writes it as Markdown; a page without an article gives
 * its body's text, without scripts, styles and navigation.
 *
 * @module
 */
import { Readability } from '@mozilla/readability';
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

/**
 * Makes an HTML page readable.
 *
 * @param html - the page's markup.
 * @param url - where it came from (relative links in the Markdown are made absolute against it).
 */
export function readablePage(html: string, url: string, format: PageFormat): ReadablePage {
  const { document } = parseHTML(withBase(html, url));
  const pageTitle = clean(document.title ?? '') || null;
  const parsed = new Readability(document).parse();
  if (parsed?.content && parsed.textContent?.trim()) {
    const text = format === 'markdown' ? toMarkdown(parsed.content) : tidy(parsed.textContent);
    return { title: clean(parsed.title ?? '') || pageTitle, text, article: true };
  }
  // Readability changed the document it read: read the body again.
  const fresh = parseHTML(html).document;
  for (const element of fresh.querySelectorAll(NOT_CONTENT)) element.remove();
  return {
    title: pageTitle,
    text: tidy(fresh.body?.textContent ?? fresh.documentElement?.textContent ?? ''),
    article: false,
  };
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
