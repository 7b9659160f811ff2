// The store's walls, checked on the source tree: memory is the only code that speaks SQL, one
// module changes fact state, nothing outside the store's own tests and benchmarks reaches its
// database handle, and every column that can hold the owner's words is covered by a redaction.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConceptEmbedder } from './embed/testkit.js';
import { dbOf } from './internal.js';
import { ERASED_BY_PURGE, NO_OWNER_TEXT } from './redaction.js';
import { openTempStore } from './test-helpers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Source files (not tests, test kits or build output) under `dir`, relative to the repo root. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (name === 'node_modules' || name === 'dist') continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (
        name.endsWith('.ts') &&
        !name.endsWith('.test.ts') &&
        !name.endsWith('.d.ts') &&
        !/(^|\/)(test-helpers|testkit|test)\.ts$/.test(p)
      )
        out.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

const packageSources = () =>
  ['packages', 'apps'].flatMap((top) =>
    readdirSync(join(ROOT, top)).flatMap((pkg) => {
      try {
        return statSync(join(ROOT, top, pkg, 'src')).isDirectory()
          ? sources(join(top, pkg, 'src'))
          : [];
      } catch {
        return [];
      }
    }),
  );

/** What SQL looks like in TypeScript: a statement keyword pair, a prepared statement, a pragma. */
const SQL = [
  /\bSELECT\b[^\n]*\bFROM\b/,
  /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b/,
  /\bUPDATE\s+\w+\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bCREATE\s+(?:TABLE|INDEX|TRIGGER|VIEW|VIRTUAL\s+TABLE)\b/,
  /\.prepare\(/,
  /\.pragma\(/,
  /from 'better-sqlite3'/,
];

describe('memory owns every SQL statement', () => {
  it('no package or app outside @keel/memory holds SQL, a prepared statement or the SQLite driver', async () => {
    const outside = packageSources().filter((f) => !f.startsWith('packages/memory/'));
    expect(outside.length).toBeGreaterThan(20); // the walk found the tree
    const offenders = outside.flatMap((f) => {
      const text = readFileSync(join(ROOT, f), 'utf8');
      return SQL.filter((re) => re.test(text)).map((re) => `${f}: ${re}`);
    });
    expect(offenders).toEqual([]);
  });

  it('the check would catch it: a statement in an app is found (control)', async () => {
    const text = "const rows = store.db.prepare('SELECT id FROM belief_queue').all();";
    expect(SQL.some((re) => re.test(text))).toBe(true);
  });

  it('nothing in packages/ or apps/ imports @keel/memory/internal or reads store.db', async () => {
    const offenders = packageSources()
      .filter((f) => !f.startsWith('packages/memory/'))
      .filter((f) => {
        const text = readFileSync(join(ROOT, f), 'utf8');
        return /@keel\/memory\/internal|\bstore\.db\b/.test(text);
      });
    expect(offenders).toEqual([]);
  });
});

describe('one module changes fact state', () => {
  const WRITES = [
    /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+facts\b/,
    /\bUPDATE\s+facts\b/,
    /\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+fact_evidence\b/,
  ];

  it('only facts/transitions.ts inserts or updates fact rows and evidence (a schema step may mend rows it constrains)', async () => {
    const writers = sources('packages/memory/src')
      .filter((f) => !f.startsWith('packages/memory/src/schema/'))
      .filter((f) => {
        const text = readFileSync(join(ROOT, f), 'utf8');
        return WRITES.some((re) => re.test(text));
      });
    expect(writers).toEqual(['packages/memory/src/facts/transitions.ts']);
  });
});

describe('every column that can hold the owner’s words is covered by a redaction', () => {
  it('each TEXT or BLOB column is redacted by a holder or declared as never holding owner text', async () => {
    const { store } = openTempStore();
    // Bind an embedder so the vector tables exist too.
    await store.useEmbedder(new ConceptEmbedder());
    const db = dbOf(store);
    const tables = db
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
      )
      .all() as { name: string; sql: string }[];
    const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql)).map((t) => t.name);
    expect(virtual).toEqual(
      expect.arrayContaining(['facts_fts', 'episodes_fts', 'vec_facts', 'vec_episodes']),
    );
    // A virtual table's own storage (FTS5's _data, _idx, …; sqlite-vec's _chunks, _rowids, …) is
    // derived from rows that are covered.
    const SHADOW = /_(?:data|idx|docsize|config|content|info|chunks|rowids|vector_chunks\d+)$/;
    const shadow = (name: string) =>
      virtual.some((v) => name.startsWith(`${v}_`) && SHADOW.test(name.slice(v.length)));
    const covered = new Set(
      [...store.ownerTextHolders().flatMap((h) => h.ownerText), ...ERASED_BY_PURGE].map(
        (c) => `${c.table}.${c.column}`,
      ),
    );
    const textColumns = tables
      .filter((t) => !virtual.includes(t.name) && !shadow(t.name))
      .flatMap((t) =>
        (db.pragma(`table_info(${t.name})`) as { name: string; type: string }[])
          .filter((c) => /TEXT|BLOB/i.test(c.type))
          .map((c) => `${t.name}.${c.name}`),
      );
    expect(textColumns.length).toBeGreaterThan(40);
    const uncovered = textColumns.filter((c) => !covered.has(c) && !(c in NO_OWNER_TEXT));
    expect(uncovered).toEqual([]);
    // Nothing is both covered and declared free of owner text, and no declaration is stale.
    expect(Object.keys(NO_OWNER_TEXT).filter((c) => covered.has(c))).toEqual([]);
    expect(Object.keys(NO_OWNER_TEXT).filter((c) => !textColumns.includes(c))).toEqual([]);
    // The columns purge must reach are among the covered ones.
    for (const c of [
      'episodes.text',
      'journal.payload',
      'messages.content',
      'turns.input',
      'sessions.anchor',
      'belief_queue.reason',
      'think_runs.summary',
      'curator_diary.text',
      'interrupts.text',
      'reminders.text',
      'reminders.phrase',
    ]) {
      expect(covered.has(c), c).toBe(true);
    }
  });

  it('a new table with a text column fails the check until it is covered (control)', async () => {
    const { store } = openTempStore();
    const db = dbOf(store);
    db.exec('CREATE TABLE errands (id INTEGER PRIMARY KEY, text TEXT NOT NULL) STRICT');
    const covered = new Set(
      store.ownerTextHolders().flatMap((h) => h.ownerText.map((c) => `${c.table}.${c.column}`)),
    );
    expect(covered.has('errands.text') || 'errands.text' in NO_OWNER_TEXT).toBe(false);
  });
});
