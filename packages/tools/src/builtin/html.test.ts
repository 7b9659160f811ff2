import { describe, expect, it } from 'vitest';
import { readablePage } from './html.js';

const paragraph = (topic: string) =>
  `<p>The ${topic} of the North Sea changes with the seasons, and the people of the coast have kept records of it for generations, in almanacs, logbooks and the memories of those who fish there before dawn.</p>`;

const ARTICLE = `<!doctype html><html><head><title>Site: Tides</title><script>var t = "SCRIPT-TEXT";</script></head>
<body><nav><a href="/">Home</a> <a href="/about">NAV-TEXT</a></nav>
<article><h1>Tides</h1>${paragraph('tide')}${paragraph('wind')}${paragraph('water')}<p>Read <a href="/more">more</a>.</p></article>
<footer>FOOTER-TEXT</footer></body></html>`;

describe('readablePage', () => {
  it('keeps the article, as Markdown with absolute links or as text with line breaks', () => {
    const markdown = readablePage(ARTICLE, 'https://example.org/news/tides', 'markdown');
    expect(markdown.article).toBe(true);
    expect(markdown.title).toBe('Site: Tides');
    expect(markdown.text).toContain('The tide of the North Sea changes with the seasons');
    expect(markdown.text).toContain('[more](https://example.org/more)');
    const text = readablePage(ARTICLE, 'https://example.org/news/tides', 'text');
    expect(text.text).toContain('seasons, and the people');
    expect(text.text).toMatch(/before dawn\.\n+The wind/);
    for (const page of [markdown, text]) {
      for (const noise of ['NAV-TEXT', 'SCRIPT-TEXT', 'FOOTER-TEXT'])
        expect(page.text).not.toContain(noise);
    }
  });

  it('gives the text of a page without an article, without its navigation or scripts', () => {
    const html = `<html><head><title>Status</title><script>var s = "SCRIPT-TEXT";</script></head>
      <body><nav>NAV-TEXT</nav><div>All systems normal</div><div>Last check 12:00</div></body></html>`;
    const page = readablePage(html, 'https://status.example.org/', 'text');
    expect(page).toEqual({
      title: 'Status',
      text: 'All systems normal\nLast check 12:00',
      article: false,
    });
  });
});
