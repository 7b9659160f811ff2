import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore, normalizeKey } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UNSPACED_KEY_CHARS } from './capture/common.js';
import { readPresence } from './capture/presence.js';
import {
  type Capture,
  captureExplicit,
  oversizedStatement,
  readCorrection,
  readFragment,
  type SpeechAct,
  speaksOfOthers,
  speechActOf,
} from './capture.js';

describe('captureExplicit', () => {
  it.each([
    [
      'remember that my dentist is Dr. Ortiz on Elm Street',
      'relationship',
      'dentist',
      'Dr. Ortiz on Elm Street',
    ],
    [
      'Remember that my dentist is Dr. Ortiz on Elm Street.',
      'relationship',
      'dentist',
      'Dr. Ortiz on Elm Street',
    ],
    [
      'please remember: my favourite band is The Lanterns',
      'preference',
      'favourite_band',
      'The Lanterns',
    ],
    ['remember that my favorite band is Paper Owls', 'preference', 'favourite_band', 'Paper Owls'],
    ['remember that I love sushi', 'preference', 'sushi', 'I love sushi'],
    [
      "remember that I can't stand sushi anymore",
      'preference',
      'sushi',
      "I can't stand sushi anymore",
    ],
    [
      "note that I'm allergic to peanuts",
      'constraint',
      'allergy_peanuts',
      'I am allergic to peanuts',
    ],
    ['note that my phone number is 555 0100', 'profile', 'phone_number', '555 0100'],
    // relations are the pattern gate's vocabulary, modifiers included
    ['remember that my step-dad is Tom', 'relationship', 'step_dad', 'Tom'],
    ['remember that my piano teacher is Mrs Kim', 'relationship', 'piano_teacher', 'Mrs Kim'],
    ['remember that I live in Porto', 'profile', 'home', 'Porto'],
    ['From now on, answer in French.', 'setting', 'answer_french', 'Answer in French'],
    ['call me Sam', 'profile', 'preferred_name', 'Sam'],
    [
      'remember that the boiler service is due in March',
      'note',
      'boiler_service_due',
      'The boiler service is due in March',
    ],
  ])('%s → %s/%s', (text, kind, key, value) => {
    expect(captureExplicit(text)).toMatchObject({ kind, key, value });
  });

  it.each([
    ['remember that I moved to Porto in March', 'profile/home', 'Porto', 'in March'],
    ['remember that I work at Acme since 2024', 'profile/employer', 'Acme', 'since 2024'],
    ['recuerda que vivo en Sevilla desde ayer', 'profile/home', 'Sevilla', 'desde ayer'],
    ['souviens-toi que j’habite à Lyon depuis hier', 'profile/home', 'Lyon', 'depuis hier'],
    ['lembra que eu moro em Lisboa desde ontem', 'profile/home', 'Lisboa', 'desde ontem'],
    ['remember that I live in Porto', 'profile/home', 'Porto', null],
  ])('%j → %s %j, said %j', (text, slot, value, when) => {
    const c = captureExplicit(text)!;
    expect(`${c.kind}/${c.key}`).toBe(slot);
    expect(c.value).toBe(value);
    expect(c.when ?? null).toBe(when);
  });

  it('a note keeps its time phrase: its words are the value', () => {
    const note = captureExplicit('remember that the boiler service is due in March')!;
    expect([note.kind, note.value, note.when]).toEqual([
      'note',
      'The boiler service is due in March',
      undefined,
    ]);
    // Control: the same phrase after a slot's value is split off.
    expect(captureExplicit('remember that I moved to Porto in March')?.when).toBe('in March');
  });

  it('the same statement twice yields the same slot (no timestamp keys)', () => {
    const a = captureExplicit('remember that my dentist is Dr. Ortiz');
    const b = captureExplicit('REMEMBER THAT MY DENTIST IS Dr. Ortiz!');
    expect(a).not.toBeNull();
    expect([b?.kind, b?.key]).toEqual([a?.kind, a?.key]);
    expect(a!.key).not.toMatch(/\d{6,}/);
  });

  it.each([
    'I had lunch with Ana today',
    'do you remember what I said?',
    'I noted the price',
    'remember that',
    'remember that 🎉🎉',
    '',
  ])('does not capture %j', (text) => {
    expect(captureExplicit(text)).toBeNull();
  });

  it('handles CJK statements', () => {
    expect(captureExplicit('note that 我喜欢喝绿茶')).toMatchObject({
      kind: 'note',
      value: '我喜欢喝绿茶',
    });
  });
});

/**
 * The capture table: each line, what it does, and — for a statement — the slot it lands in and
 * the value kept. `null` means nothing is captured as the owner's belief.
 */
const TABLE: readonly [line: string, act: SpeechAct, slot: string | null, value?: string][] = [
  // Statements, English.
  ['remember that my dentist is Dr. Ortiz', 'statement', 'relationship/dentist', 'Dr. Ortiz'],
  ['remember my birthday is May 3', 'statement', 'profile/birthday', 'May 3'],
  ['remember that my sister is Ada, ok?', 'statement', 'relationship/sister', 'Ada'],
  ['btw, remember that my wife is Jane', 'statement', 'relationship/wife', 'Jane'],
  ['Could you remember that my sister is Ada', 'statement', 'relationship/sister', 'Ada'],
  ['remember, I\u2019m allergic to shellfish', 'statement', 'constraint/allergy_shellfish'],
  ['keep in mind that I don\u2019t eat pork', 'statement', 'preference/pork'],
  ['oh and remember that I hate cilantro', 'statement', 'preference/cilantro', 'I hate cilantro'],
  ['remember that my dog is called Rex', 'statement', 'relationship/dog', 'Rex'],
  ["remember that my sister's name is Ada", 'statement', 'profile/sister_name', 'Ada'],
  ['call me Sam', 'statement', 'profile/preferred_name', 'Sam'],
  ['call me Dr. Smith', 'statement', 'profile/preferred_name', 'Dr. Smith'],
  ['please call me Sam from now on', 'statement', 'profile/preferred_name', 'Sam'],
  ['call me Sam, not Samuel', 'statement', 'profile/preferred_name', 'Sam'],
  ['from now on, call me Sam', 'statement', 'profile/preferred_name', 'Sam'],
  ['remember to call me Sam', 'statement', 'profile/preferred_name', 'Sam'],
  ["remember that I'm on Project Falcon", 'statement', 'project/current_project', 'Project Falcon'],
  [
    'remember that they moved me off Falcon onto Heron',
    'statement',
    'project/current_project',
    'Heron',
  ],
  ["remember that I'm on Heron now", 'statement', 'project/current_project', 'Heron'],
  [
    'remember that I switched from Falcon to Heron',
    'statement',
    'project/current_project',
    'Heron',
  ],
  [
    "remember that I'm no longer on Falcon, I'm on Heron now",
    'statement',
    'project/current_project',
    'Heron',
  ],
  ['actually my dentist is Dr. Ruiz', 'statement', 'relationship/dentist', 'Dr. Ruiz'],
  [
    'remember that actually my dentist is Dr. Ruiz',
    'statement',
    'relationship/dentist',
    'Dr. Ruiz',
  ],
  ['remember that my new dentist is Dr. Ruiz', 'statement', 'relationship/dentist', 'Dr. Ruiz'],
  ["Actually, my sister's name is Leah, not Lea.", 'statement', 'profile/sister_name', 'Leah'],
  ['remember that I moved to Lyon', 'statement', 'profile/home', 'Lyon'],
  ['remember that I live in Lyon now', 'statement', 'profile/home', 'Lyon'],
  ['remember that I moved from Paris to Lyon', 'statement', 'profile/home', 'Lyon'],
  ['Correction: I moved to Porto, not Lisbon.', 'statement', 'profile/home', 'Porto'],
  ['remember that I work at Acme', 'statement', 'profile/employer', 'Acme'],
  ['remember that I left Acme and joined Globex', 'statement', 'profile/employer', 'Globex'],
  ['remember that I left Acme for Globex', 'statement', 'profile/employer', 'Globex'],
  ['remember that I joined a book club', 'statement', 'note/joined_book_club'],
  ['remember that I also work at Globex', 'statement', 'note/work_globex'],
  ['remember that Sam works at Acme', 'statement', 'relationship/sam.employer'],
  ['remember that Sam also runs Acme\u2019s GitHub org', 'statement', 'note/sam.runs_acme_github'],
  ['note that my sister Ana lives in Porto', 'statement', 'relationship/ana.home'],
  ["remember that I'm on holiday", 'statement', 'note/holiday', 'I am on holiday'],
  [
    'remember that if I ever get sick, my sister Ana is my emergency contact',
    'statement',
    'note/ever_sick_sister',
  ],
  ['remember that I told you I\u2019m allergic to nuts', 'statement', 'constraint/allergy_nuts'],
  ["actually, I'm allergic to penicillin", 'statement', 'constraint/allergy_penicillin'],
  // Reports of someone else's words: about them, never the owner's own preference.
  [
    'remember that Sam said he hates sushi',
    'report',
    'note/sam.hates_sushi',
    'Sam said he hates sushi',
  ],
  ["remember that my boss said I'm getting promoted", 'report', 'note/boss.getting_promoted'],
  [
    'remember that according to my doctor, I should cut down on salt',
    'report',
    'note/doctor.cut_down_salt',
  ],
  // Questions.
  ['Remember what I told you about my cat Biscuit?', 'question', null],
  ['Remember what I told you about my cat Biscuit', 'question', null],
  ['remember that I told you about my cat', 'question', null],
  ['do you remember my cat\u2019s name', 'question', null],
  ['do you remember that my sister is Ada', 'question', null],
  ['can you remember that my sister is Ada?', 'question', null],
  ['will you remember that my sister is Ada?', 'question', null],
  ['remember that my sister is Ada?', 'question', null],
  ['remember when we went to Paris', 'question', null],
  ['remember that time we went to Paris', 'question', null],
  ['remember if I paid the rent', 'question', null],
  ['what is my dentist called?', 'question', null],
  // Requests.
  ['call me when the build finishes', 'request', null],
  ['call me back in ten minutes', 'request', null],
  ['call me back', 'request', null],
  ['call me at 5', 'request', null],
  ['call me on my cell', 'request', null],
  ['call me tomorrow', 'request', null],
  ['call me if anything breaks', 'request', null],
  ['call me a taxi', 'request', null],
  ['call me maybe', 'request', null],
  ['call me crazy, but I like pineapple on pizza', 'request', null],
  ['please call me when you are done', 'request', null],
  ['remind me to call mom', 'request', null],
  ['remind me about the dentist on Friday', 'request', null],
  ['remember to buy milk', 'request', null],
  ["don't forget to call mom", 'request', null],
  ['acuérdate de comprar leche', 'request', null],
  ['vergiss nicht, Milch zu kaufen', 'request', null],
  // A passing remark after "actually" is no correction of a stated fact.
  ['Actually I like that idea', 'statement', null],
  // Hypotheticals.
  ['what if I were a vegan', 'hypothetical', null],
  ['remember that if I were rich I would buy a boat', 'hypothetical', null],
  ['remember that I wish I lived in Japan', 'hypothetical', null],
  ['remember that suppose I moved to Mars', 'hypothetical', null],
];

describe('capture fires only on statements: the table', () => {
  it.each(TABLE)('%j is a %s → %s', (line, act, slot, value) => {
    const c = captureExplicit(line);
    expect(speechActOf(line)).toBe(act);
    if (slot === null) {
      expect(c).toBeNull();
      return;
    }
    expect(c, line).not.toBeNull();
    expect(`${c!.kind}/${c!.key}`).toBe(slot);
    if (value !== undefined) expect(c!.value).toBe(value);
  });

  it('holds at least 40 lines, statements and not (counts printed)', () => {
    const statements = TABLE.filter(([, , slot]) => slot !== null).length;
    const others = TABLE.length - statements;
    console.log(`capture table: ${statements} statements captured, ${others} lines not captured`);
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    expect(statements).toBeGreaterThanOrEqual(20);
    expect(others).toBeGreaterThanOrEqual(20);
  });

  it('"call me Sam" names the owner; "call me when …" never touches the name', () => {
    expect(captureExplicit('call me Sam')?.key).toBe('preferred_name');
    for (const line of ['call me when the build finishes', 'call me at 5', 'call me back']) {
      expect(captureExplicit(line), line).toBeNull();
    }
  });

  it('a report about someone else is never the owner’s preference', () => {
    const c = captureExplicit('remember that Sam said he hates sushi')!;
    expect(c.kind).not.toBe('preference');
    expect(c.about).toBe('sam');
    expect(c.key.startsWith('sam.')).toBe(true);
    expect(captureExplicit('remember that I hate sushi')).toMatchObject({
      kind: 'preference',
      key: 'sushi',
      about: 'owner',
    });
  });

  it('reads only the first sentence of a statement', () => {
    expect(
      captureExplicit('remember that my sister is Ada. What is the weather like?'),
    ).toMatchObject({ key: 'sister', value: 'Ada' });
    expect(captureExplicit(`remember that ${'very '.repeat(500)}long`)).toBeNull();
  });
});

/** Statements in ten scripts after an English trigger. */
const SCRIPTS: readonly [script: string, statement: string][] = [
  ['Devanagari', 'मेरी बहन दिल्ली में रहती है'],
  ['Bengali', 'আমার বোন ঢাকায় থাকে'],
  ['Thai', 'น้องสาวของฉันอยู่ที่เชียงใหม่'],
  ['Japanese', '私の妹は東京に住んでいます'],
  ['Chinese', '我妹妹住在北京'],
  ['Arabic', 'أختي تعيش في القاهرة'],
  ['Hebrew', 'אחותי גרה בחיפה'],
  ['Korean', '내 여동생은 서울에 살아요'],
  ['Vietnamese', 'em gái tôi sống ở Hà Nội'],
  ['Cyrillic', 'моя сестра живёт в Москве'],
];

describe('every script', () => {
  it.each(SCRIPTS)('%s: the owner’s words are the value, the key comes from them', (_, s) => {
    const c = captureExplicit(`remember that ${s}`);
    expect(c).not.toBeNull();
    expect(c!.value.normalize('NFC').toLowerCase()).toBe(s.normalize('NFC').toLowerCase());
    expect(normalizeKey(c!.key)).toBe(c!.key);
    expect(c!.key.length).toBeGreaterThan(0);
    // Stable: the same words give the same slot.
    expect(captureExplicit(`Remember that ${s}.`)?.key).toBe(c!.key);
  });

  it('the Devanagari key keeps its vowel signs', () => {
    expect(captureExplicit('remember that मेरी बहन दिल्ली में रहती है')?.key).toBe('मेरी_बहन_दिल्ली');
  });

  it.each([
    ['Thai', 'น้องสาวของฉันอยู่ที่เชียงใหม่'],
    ['Japanese', '私の妹は東京に住んでいます'],
    ['Chinese', '我妹妹住在北京'],
  ])('%s, written without spaces, gets a bounded key of its first letters', (_, s) => {
    const key = captureExplicit(`remember that ${s}`)!.key;
    const letters = [...new Intl.Segmenter('und', { granularity: 'grapheme' }).segment(key)];
    expect(letters.length).toBeLessThanOrEqual(UNSPACED_KEY_CHARS);
    expect(s.startsWith(key.slice(0, 2))).toBe(true);
    expect(captureExplicit(`note that ${s}`)!.key).toBe(key);
  });

  it('a key always satisfies the store, whatever the text', () => {
    const odd = [
      'remember that ’’’ ... ---',
      'remember that 0123456789012345 is the code',
      'remember that Straße is long',
      'remember that İstanbul is home',
      `remember that ${'ß'.repeat(300)}`,
      'remember that 🎉 and ☕ and ok',
      'remember that ﷺ ؟',
      'remember that a\u0301\u0301\u0301 b',
    ];
    for (const line of odd) {
      const c = captureExplicit(line);
      if (c) expect(normalizeKey(c.key), line).toBe(c.key);
    }
  });
});

/** Trigger phrases in Spanish, French, German and Portuguese, and where their statements land. */
const LANGUAGES: readonly [line: string, language: string, slot: string | null, value?: string][] =
  [
    ['recuerda que mi hermana se llama Lucía', 'es', 'relationship/hermana', 'Lucía'],
    [
      'recuerda que mi hermana se llama Lucía y vive en Sevilla',
      'es',
      'relationship/hermana',
      'Lucía',
    ],
    ['acuérdate de que vivo en Sevilla', 'es', 'profile/home', 'Sevilla'],
    ['recuerda que me mudé a Valencia', 'es', 'profile/home', 'Valencia'],
    ['no olvides que trabajo en Acme', 'es', 'profile/employer', 'Acme'],
    ['recuerda que me gusta el café', 'es', 'preference/café', 'Me gusta el café'],
    ['recuerda que soy alérgica a las nueces', 'es', 'constraint/allergy_nueces'],
    [
      'recuerda que estoy en el proyecto Halcón',
      'es',
      'project/current_project',
      'proyecto Halcón',
    ],
    ['anota que mi perro se llama Toby', 'es', 'relationship/perro', 'Toby'],
    ['llámame Sam', 'es', 'profile/preferred_name', 'Sam'],
    [
      'a partir de ahora, responde en español',
      'es',
      'setting/responde_español',
      'Responde en español',
    ],
    ['en realidad, mi dentista es el Dr. Ruiz', 'es', 'relationship/dentista', 'Dr. Ruiz'],
    ['recuerda que Sam dijo que odia el sushi', 'es', 'note/sam.odia_sushi'],
    ['rappelle-toi que ma sœur s’appelle Léa', 'fr', 'relationship/sœur', 'Léa'],
    ['souviens-toi que j’habite à Lyon', 'fr', 'profile/home', 'Lyon'],
    ['note que je travaille chez Renault', 'fr', 'profile/employer', 'Renault'],
    ['n’oublie pas que je suis allergique aux arachides', 'fr', 'constraint/allergy_arachides'],
    [
      'souviens-toi que je suis sur le projet Héron',
      'fr',
      'project/current_project',
      'projet Héron',
    ],
    ['appelle-moi Sam', 'fr', 'profile/preferred_name', 'Sam'],
    ['merk dir, dass meine Schwester Lucía heißt', 'de', 'relationship/schwester', 'Lucía'],
    ['merk dir: meine Schwester heißt Lucía', 'de', 'relationship/schwester', 'Lucía'],
    ['denk daran, dass ich in Berlin wohne', 'de', 'profile/home', 'Berlin'],
    ['merk dir, dass ich nach Hamburg gezogen bin', 'de', 'profile/home', 'Hamburg'],
    ['vergiss nicht, dass ich bei Siemens arbeite', 'de', 'profile/employer', 'Siemens'],
    [
      'denk daran, dass ich im Projekt Reiher arbeite',
      'de',
      'project/current_project',
      'Projekt Reiher',
    ],
    ['merk dir, dass ich keinen Koriander mag', 'de', 'preference/koriander'],
    ['nenn mich Sam', 'de', 'profile/preferred_name', 'Sam'],
    ['eigentlich ist mein Zahnarzt Dr. Ruiz', 'de', 'relationship/zahnarzt', 'Dr. Ruiz'],
    ['lembra que minha irmã se chama Ana', 'pt', 'relationship/irmã', 'Ana'],
    ['lembre-se de que eu moro em Lisboa', 'pt', 'profile/home', 'Lisboa'],
    ['lembra que eu me mudei para o Porto', 'pt', 'profile/home', 'Porto'],
    ['não esqueça que trabalho na Embraer', 'pt', 'profile/employer', 'Embraer'],
    ['lembra que eu gosto de café', 'pt', 'preference/café', 'Eu gosto de café'],
    ['me chame de Sam', 'pt', 'profile/preferred_name', 'Sam'],
    // Not statements, in the same languages.
    ['¿recuerdas que mi hermana se llama Lucía?', 'es', null],
    ['recuerda qué te dije', 'es', null],
    ['llámame cuando termines', 'es', null],
    ['recuerda que y si fuera rico', 'es', null],
    ['souviens-toi quand on était à Paris', 'fr', null],
    ['appelle-moi demain', 'fr', null],
    ['merk dir, was ich gesagt habe', 'de', null],
    ['nenn mich morgen', 'de', null],
    ['lembra quando fomos a Lisboa', 'pt', null],
    ['me chame de novo amanhã', 'pt', null],
  ];

describe('trigger phrases in Spanish, French, German and Portuguese', () => {
  it.each(LANGUAGES)('%j (%s) → %s', (line, language, slot, value) => {
    const c = captureExplicit(line);
    if (slot === null) {
      expect(c).toBeNull();
      return;
    }
    expect(c, line).not.toBeNull();
    expect(c!.language).toBe(language);
    expect(`${c!.kind}/${c!.key}`).toBe(slot);
    if (value !== undefined) expect(c!.value).toBe(value);
  });

  it('the value keeps the owner’s words and language, never translated', () => {
    for (const [line, , slot] of LANGUAGES) {
      const c = captureExplicit(line);
      if (!c || slot === null) continue;
      const words = c.value
        .toLowerCase()
        .split(/[\s,.]+/)
        .filter(Boolean);
      for (const w of words) expect(line.toLowerCase(), `${line} → ${c.value}`).toContain(w);
    }
  });
});

describe('corrections take, at capture, through the real store', () => {
  let dir: string;
  let store: MemoryStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'keel-capture-'));
    store = MemoryStore.open(join(dir, 'keel.db'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Says each line in its own turn, as the terminal does, and returns the captures. */
  function say(...lines: string[]): Capture[] {
    return lines.map((text) => {
      const c = captureExplicit(text);
      if (!c) throw new Error(`not captured: ${text}`);
      const episode = store.addEpisode({ channel: 'terminal', role: 'owner', text });
      store.remember({
        kind: c.kind,
        key: c.key,
        value: c.value,
        source: 'owner_stated',
        episodeId: episode.id,
        actor: 'owner',
      });
      return c;
    });
  }
  const slotOf = (kind: Capture['kind'], key: string) => ({ scope: 'owner' as const, kind, key });
  const values = (kind: Capture['kind'], key: string) =>
    store.history(slotOf(kind, key)).map((f) => [f.value, f.status]);

  it('a project change, worded three ways, supersedes in one slot and keeps the history', () => {
    say(
      "remember that I'm on Project Falcon",
      'remember that they moved me off Falcon onto Heron',
      "remember that I'm on Heron now",
    );
    expect(store.current(slotOf('project', 'current_project'))).toMatchObject({
      value: 'Heron',
      source: 'owner_stated',
      evidence_count: 2,
    });
    expect(values('project', 'current_project')).toEqual([
      ['Heron', 'active'],
      ['Project Falcon', 'superseded'],
    ]);
    expect(store.activeFacts().filter((f) => /falcon|heron/i.test(f.value))).toHaveLength(1);
  });

  it('"actually my dentist is Dr. Ruiz" updates relationship/dentist', () => {
    say('remember that my dentist is Dr. Ortiz', 'actually my dentist is Dr. Ruiz');
    expect(values('relationship', 'dentist')).toEqual([
      ['Dr. Ruiz', 'active'],
      ['Dr. Ortiz', 'superseded'],
    ]);
    say('remember that actually my dentist is Dr. Ruiz');
    expect(store.current(slotOf('relationship', 'dentist'))?.evidence_count).toBe(2);
  });

  it('"I moved to Lyon" and "I live in Lyon now" share profile/home', () => {
    say(
      'remember that I live in Porto',
      'remember that I moved to Lyon',
      'remember that I live in Lyon now',
    );
    expect(values('profile', 'home')).toEqual([
      ['Lyon', 'active'],
      ['Porto', 'superseded'],
    ]);
    expect(store.current(slotOf('profile', 'home'))?.evidence_count).toBe(2);
  });

  it('an employer change supersedes profile/employer', () => {
    say('remember that I work at Acme', 'remember that I left Acme and joined Globex');
    expect(values('profile', 'employer')).toEqual([
      ['Globex', 'active'],
      ['Acme', 'superseded'],
    ]);
  });

  it('an additive statement about a neighbour supersedes nothing', () => {
    say(
      'remember that I work at Acme',
      'remember that Sam works at Acme',
      'remember that Sam also runs Acme’s GitHub org',
      'remember that I also work at Globex',
    );
    expect(values('profile', 'employer')).toEqual([['Acme', 'active']]);
    expect(values('relationship', 'sam.employer')).toEqual([['Sam works at Acme', 'active']]);
    expect(store.current(slotOf('note', 'sam.runs_acme_github'))?.value).toBe(
      'Sam also runs Acme’s GitHub org',
    );
    expect(store.activeFacts()).toHaveLength(4);
    expect(store.activeFacts().every((f) => f.superseded_by_id === null)).toBe(true);
  });

  it('every script is stored, with its own words, under a valid key', () => {
    for (const [, s] of SCRIPTS) say(`remember that ${s}`);
    expect(store.activeFacts()).toHaveLength(SCRIPTS.length);
  });

  it('a Spanish correction updates the Spanish slot and keeps the words', () => {
    say('recuerda que vivo en Sevilla', 'recuerda que me mudé a Valencia');
    expect(values('profile', 'home')).toEqual([
      ['Valencia', 'active'],
      ['Sevilla', 'superseded'],
    ]);
  });
});

describe('readFragment: a slot given its new value without a sentence around it', () => {
  it.each([
    ['Nairobi now.', { name: null, value: 'Nairobi' }],
    ['oh and GP — Dr. Nakamura these days', { name: 'GP', value: 'Dr. Nakamura' }],
    ['nouveau numéro : 07 58 20 16 44', { name: 'numéro', value: '07 58 20 16 44' }],
    ['fyi mudei de número, agora é (21) 98207-3316', { name: 'número', value: '(21) 98207-3316' }],
    ["changed my number, it's 0612 345 678 now", { name: 'number', value: '0612 345 678' }],
    ['I got a new phone number: 555 0199', { name: 'phone number', value: '555 0199' }],
    ['my email changed to sam@example.org', { name: 'email', value: 'sam@example.org' }],
    ['home is Berlin now', { name: 'home', value: 'Berlin', heldOnly: true }],
    [
      'new barber since last tuesday — Emeka at Fadeaway',
      { name: 'barber', value: 'Emeka at Fadeaway', when: 'since last tuesday' },
    ],
    [
      'started with a new therapist yesterday, dr. anya kowalczyk',
      { name: 'therapist', value: 'dr. anya kowalczyk', when: 'yesterday' },
    ],
    [
      'war bei meiner neuen Zahnärztin, Dr. Pichler in Favoriten',
      { name: 'Zahnärztin', value: 'Dr. Pichler in Favoriten' },
    ],
  ])('%j → %j', (line, fragment) => {
    expect(readFragment(line)).toEqual(fragment);
  });

  it.each([
    'tired now',
    "I'm in Cork now",
    'Arsenal are top of the league now',
    'so it is on the 3rd now',
    'started with a new therapist yesterday, it went well',
  ])('%j is no fragment (control: "Cork now" is)', (line) => {
    expect(readFragment(line)).toBeNull();
    expect(readFragment('Cork now')).toEqual({ name: null, value: 'Cork' });
  });
});

describe('a trigger phrase after a lead-in clause', () => {
  it('is read from the trigger on ("… : souviens-toi que …", "ok so: remember that …")', () => {
    expect(
      captureExplicit(
        "finalement je retourne chez lui : souviens-toi que mon coiffeur s'appelle Yanis",
      ),
    ).toMatchObject({ trigger: 'remember', key: 'coiffeur', value: 'Yanis', about: 'owner' });
    expect(captureExplicit('ok so: remember that I live in Lyon')).toMatchObject({
      key: 'home',
      value: 'Lyon',
    });
  });

  it.each(['Sam said: remember that I hate sushi', "my mom texted: don't forget that I'm vegan"])(
    '%j passes on someone else’s words: nothing is the owner’s',
    (line) => {
      expect(captureExplicit(line)).toBeNull();
    },
  );
});

describe('capture: "we" includes the owner, a chat drops "I am", a job is where one works', () => {
  it.each([
    ['we moved to Porto last month', 'home', 'Porto'],
    ['we live in Porto now', 'home', 'Porto'],
    ['now working at Stripe', 'employer', 'Stripe'],
    ['living in Berlin these days', 'home', 'Berlin'],
    ['my new job is at Stripe', 'employer', 'Stripe'],
  ])('%j → profile/%s %j', (line, key, value) => {
    expect(captureExplicit(line)).toMatchObject({ kind: 'profile', key, value, about: 'owner' });
  });

  it('"my job is a nightmare" fills no employer (control: "my job is at Stripe" does)', () => {
    expect(captureExplicit('my job is a nightmare')?.key).not.toBe('employer');
    expect(captureExplicit('my job is at Stripe')?.key).toBe('employer');
  });
});

describe('capture: "we" includes the owner and a job is where one works, in every language', () => {
  it.each([
    ['nos mudamos a Oporto', 'home', 'Oporto'],
    ['on a déménagé à Rennes', 'home', 'Rennes'],
    ['wir sind nach Köln gezogen', 'home', 'Köln'],
    ['a gente se mudou pro Porto', 'home', 'Porto'],
    ['estou trabalhando na Natura agora', 'employer', 'Natura'],
    ['agora tô morando em floripa', 'home', 'floripa'],
    ['estoy viviendo en Valencia', 'home', 'Valencia'],
    ['mi nuevo trabajo es en Zara', 'employer', 'Zara'],
    ['mon nouveau boulot est chez Decathlon', 'employer', 'Decathlon'],
    ['o meu novo trabalho é na Natura', 'employer', 'Natura'],
    ['mein neuer Job ist bei Bosch', 'employer', 'Bosch'],
    ['trabajo en Mercadona desde marzo', 'employer', 'Mercadona'],
  ])('%j → profile/%s %j', (line, key, value) => {
    expect(captureExplicit(line)).toMatchObject({ kind: 'profile', key, value, about: 'owner' });
  });
});

describe('a chat’s lower case', () => {
  it.each([
    ['i drive a toyota yaris hybrid, silver, 2020', 'I drive a toyota yaris hybrid'],
    [
      "i'm learning japanese, duolingo + a tutor, aiming for the N4 in december",
      "I'm learning japanese",
    ],
    ['i drive a mazda 3, the red hatchback', 'I drive a mazda 3, the red hatchback'],
  ])('%j is the owner’s state, kept as a note', (line, value) => {
    expect(captureExplicit(line)).toMatchObject({ kind: 'note', value, about: 'owner' });
    expect(captureExplicit(line)?.when).toBeUndefined();
  });

  it.each([
    'i have a cold',
    "i'm so tired",
    'i have a meeting at noon',
    'I always order an oat flat white',
  ])('%j names nothing in particular: not kept (control: a name in lower case is)', (line) => {
    expect(captureExplicit(line)).toBeNull();
    expect(captureExplicit('i drive a toyota yaris')?.kind).toBe('note');
  });
});

describe('who stops something is the clause’s subject', () => {
  it.each([
    'my mate callum sold his yaris and got a tesla',
    'callum sold his yaris',
    'mein co-trainer hat beim TSV aufgehört',
    'ma coloc a quitté sa boîte',
  ])('%j stops nothing of the owner’s (control: the owner’s own stop does)', (line) => {
    expect(readCorrection(line)).toBeNull();
    expect(readCorrection('sold the yaris')).toMatchObject({
      shape: 'ending',
      object: 'the yaris',
    });
  });
});

describe('readPresence: where the owner says they are now', () => {
  it.each([
    ["i'm at Monzo now, fraud squad", { place: 'Monzo' }],
    ['desde el martes pasado estoy en Cabify', { place: 'Cabify', when: 'desde el martes pasado' }],
    ['je suis chez sopra steria depuis lundi', { place: 'sopra steria', when: 'depuis lundi' }],
    ['ich bin seit dem 1. Mai bei der DKB', { place: 'DKB', when: 'seit dem 1. Mai' }],
    ['agora tô no Inter, muito melhor', { place: 'Inter' }],
  ])('%j → %j', (line, presence) => {
    expect(readPresence(line)).toEqual(presence);
  });

  it.each(["I'm at home", 'estoy en casa', 'je suis chez moi', 'Sam is at Monzo now'])(
    '%j says nothing of where the owner belongs (control: "I\'m at Monzo" does)',
    (line) => {
      expect(readPresence(line)).toBeNull();
      expect(readPresence("I'm at Monzo")).toEqual({ place: 'Monzo' });
    },
  );
});

describe('a possessive before a copula is the owner’s statement, not someone else’s', () => {
  it.each([
    "mon fournisseur internet c'est Free",
    "notre box internet c'est Free",
    "my car's a Civic",
  ])('%j is not about someone else (control: "my mate callum sold his yaris" is)', (line) => {
    expect(speaksOfOthers(line)).toBe(false);
    expect(speaksOfOthers('my mate callum sold his yaris')).toBe(true);
  });

  it('"notre X c\'est Y" is the owner’s slot', () => {
    expect(captureExplicit("notre box internet c'est Free")).toMatchObject({
      kind: 'profile',
      key: 'box_internet',
      value: 'Free',
    });
  });
});

describe('oversizedStatement', () => {
  const long = 'a'.repeat(3000);
  it('names the length of a statement asked to be kept that capture cannot read, in any trigger', () => {
    expect(oversizedStatement(`remember that my story is ${long}`)).toBe(3012);
    expect(oversizedStatement(`recuerda que mi historia es ${long}`)).toBeGreaterThan(3000);
    expect(oversizedStatement(`ok so: remember that my story is ${long}`)).toBe(3012);
    expect(oversizedStatement(`запомни, что ${long}`)).toBe(3000);
    expect(captureExplicit(`remember that my story is ${long}`)).toBeNull();
  });

  it('is null for a statement that fits, and for a long line with no trigger phrase', () => {
    expect(oversizedStatement('remember that my dentist is Dr. Ortiz')).toBeNull();
    expect(captureExplicit('remember that my dentist is Dr. Ortiz')).not.toBeNull();
    expect(oversizedStatement(`my story is ${long}`)).toBeNull();
    // A short first sentence is read; what follows it is the episode's.
    expect(oversizedStatement(`remember that my dentist is Dr. Ortiz. ${long}`)).toBeNull();
  });
});
