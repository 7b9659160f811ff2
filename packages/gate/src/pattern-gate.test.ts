// The pattern gate: its calibration on the labelled set (precision and recall, printed), and its
// behaviour on hard negatives, each beside a positive control.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KeelError } from '@keel/errors';
import { describe, expect, it } from 'vitest';
import { BELIEF_CATEGORIES } from './belief.js';
import { judgeByPattern, PATTERN_GATE_MAX_CHARS, PatternGate } from './pattern-gate.js';

interface Labelled {
  text: string;
  durable: boolean;
  category?: string;
  source: 'longmemeval' | 'keel';
  ref?: string;
  note?: string;
  /** ISO 639-1 code of the turn's language; English when absent. */
  lang?: string;
  split: 'tune' | 'holdout' | 'audit';
}

const LABELS = JSON.parse(
  readFileSync(new URL('./belief-gate.labels.json', import.meta.url), 'utf8'),
) as { items: Labelled[] };
/** Current life facts and their changes, in five languages (all written for keel, no audit split). */
const CHANGES = JSON.parse(
  readFileSync(new URL('./belief-gate.changes.labels.json', import.meta.url), 'utf8'),
) as { items: Labelled[] };
const LONGMEMEVAL = fileURLToPath(
  new URL('../../../tests/fixtures/data/longmemeval/', import.meta.url),
);

interface Scores {
  n: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
}

function score(items: Labelled[]): Scores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const item of items) {
    const yes = judgeByPattern(item.text).decision === 'yes';
    if (yes && item.durable) tp++;
    else if (yes) fp++;
    else if (item.durable) fn++;
    else tn++;
  }
  return {
    n: items.length,
    tp,
    fp,
    fn,
    tn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
  };
}

const line = (name: string, s: Scores) =>
  `${name.padEnd(22)} n=${String(s.n).padStart(3)}  precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  (tp ${s.tp}, fp ${s.fp}, fn ${s.fn}, tn ${s.tn})`;

/**
 * The designed set: a systematic LongMemEval sample and turns written for keel (no audit split),
 * and the set of current life facts and their changes.
 */
const DESIGNED = [...LABELS.items.filter((i) => i.split !== 'audit'), ...CHANGES.items];

describe('the labelled set', () => {
  const items = DESIGNED;

  it('has at least 80 owner turns, about half durable, with hard negatives', () => {
    expect(items.length).toBeGreaterThanOrEqual(80);
    const durable = items.filter((i) => i.durable).length / items.length;
    expect(durable).toBeGreaterThan(0.4);
    expect(durable).toBeLessThan(0.6);
    expect(items.filter((i) => !i.durable && /\?\s*$/.test(i.text)).length).toBeGreaterThan(5);
    for (const item of items) {
      if (item.durable) expect(BELIEF_CATEGORIES).toContain(item.category);
    }
  });

  it('covers current life facts and their changes in five languages, durable and not', () => {
    expect(CHANGES.items.length).toBeGreaterThanOrEqual(60);
    for (const lang of ['en', 'es', 'fr', 'de', 'pt']) {
      const inLang = CHANGES.items.filter((i) => (i.lang ?? 'en') === lang);
      expect(inLang.filter((i) => i.durable).length, lang).toBeGreaterThanOrEqual(3);
      expect(inLang.filter((i) => !i.durable).length, lang).toBeGreaterThanOrEqual(3);
    }
    for (const split of ['tune', 'holdout']) {
      expect(CHANGES.items.filter((i) => i.split === split).length, split).toBeGreaterThan(30);
    }
    expect(CHANGES.items.every((i) => i.source === 'keel' && i.split !== 'audit')).toBe(true);
  });

  it('quotes its LongMemEval turns verbatim from the dataset files it names', () => {
    const fromData = LABELS.items.filter((i) => i.source === 'longmemeval');
    expect(fromData.length).toBeGreaterThanOrEqual(20);
    const files = new Map<
      string,
      { haystack_session_ids: string[]; haystack_sessions: { role: string; content: string }[][] }
    >();
    for (const item of fromData) {
      const [file, session, , turn] = item.ref!.split(' ');
      if (!files.has(file!)) {
        files.set(file!, JSON.parse(readFileSync(`${LONGMEMEVAL}${file}`, 'utf8')));
      }
      const data = files.get(file!)!;
      const s = data.haystack_sessions[data.haystack_session_ids.indexOf(session!)]!;
      expect(s[Number(turn)]).toMatchObject({ role: 'user', content: item.text });
    }
  });
});

describe('PatternGate calibration', () => {
  it('precision ≥ 0.85 and recall ≥ 0.6 on the labelled set (figures printed)', () => {
    const items = LABELS.items;
    const all = score(DESIGNED);
    const changes = CHANGES.items;
    const rows = [
      line('tune + holdout', all),
      line('tune split', score(DESIGNED.filter((i) => i.split === 'tune'))),
      line('holdout split', score(DESIGNED.filter((i) => i.split === 'holdout'))),
      line('  first set, holdout', score(items.filter((i) => i.split === 'holdout'))),
      line('  changes, holdout', score(changes.filter((i) => i.split === 'holdout'))),
      line('  LongMemEval sample', score(DESIGNED.filter((i) => i.source === 'longmemeval'))),
      line('  written for keel', score(DESIGNED.filter((i) => i.source === 'keel'))),
      line('  not English', score(changes.filter((i) => (i.lang ?? 'en') !== 'en'))),
      line('audit split', score(items.filter((i) => i.split === 'audit'))),
    ];
    const misses = [...items, ...changes]
      .filter((i) => i.split !== 'holdout')
      .filter((i) => (judgeByPattern(i.text).decision === 'yes') !== i.durable)
      .map(
        (i) =>
          `  ${i.durable ? 'missed' : 'wrong yes'}: ${JSON.stringify(i.text.slice(0, 140))} → ${judgeByPattern(i.text).reason}`,
      );
    console.log(
      [
        'PatternGate on belief-gate.labels.json and belief-gate.changes.labels.json',
        ...rows,
        'errors outside the holdout split:',
        ...misses,
      ].join('\n'),
    );
    expect(all.precision).toBeGreaterThanOrEqual(0.85);
    expect(all.recall).toBeGreaterThanOrEqual(0.6);
  });
});

describe('PatternGate behaviour', () => {
  const gate = new PatternGate();

  it.each([
    ['Do I like olives?', 'I like olives.', 'preference'],
    ['If I moved to Berlin, would I need a visa?', 'I moved to Berlin in March.', 'identity'],
    ["She said: 'I'm allergic to peanuts.'", "I'm allergic to peanuts.", 'identity'],
    ['My friend says she loves sushi.', 'My friend Dana is a sushi chef.', 'relationship'],
    ["I like that idea, let's go with the second option.", 'I like spicy food.', 'preference'],
    ['I love how you explained that.', 'I love quiet Sunday mornings.', 'preference'],
    ['I love the clean lines of this one.', 'I love clean lines in furniture.', 'preference'],
    ['I prefer the second option.', 'I prefer the blue notebook for work.', 'preference'],
    ["I'd love a summary of this article.", 'I love long novels.', 'preference'],
    ["I wonder whether I'd enjoy living in Tokyo.", 'I enjoy living in Tokyo.', 'preference'],
    ["I'm going to have pasta tonight.", "I'm going to move to Lisbon next year.", 'plan'],
    ["I'm thinking of trying the smoothie bowl.", "I'm thinking of selling my car.", 'plan'],
    ["I'll never forget that concert.", "I'll never drink coffee after 4pm again.", 'decision'],
    ["Actually, I'm not sure yet.", 'Actually, I live in Porto, not Lisbon.', 'correction'],
    ["In the story, the hero says 'I hate the sea'.", 'I hate the sea.', 'preference'],
    ['Pretend you are my grandmother.', 'My grandmother Rosa lives with us.', 'relationship'],
    ['My teacher said the test is easy.', 'My teacher, Mrs Kim, lives in Porto.', 'relationship'],
    ['What is my name?', 'My name is Priya.', 'identity'],
    ["I'm tired today.", "I'm a nurse, mostly on night shifts.", 'identity'],
    ['Write a poem about my dog.', 'We have two dogs and a cat.', 'relationship'],
    ['Do you think I should quit my job?', "I've decided to quit my job.", 'decision'],
    ['Taylor Swift is touring Europe next year.', "We're flying to Tokyo in March.", 'plan'],
    // reminders, appointments and dated events in the owner's own life
    [
      'Can you remind me what the capital of France is?',
      'Remind me to call mum on Friday.',
      'plan',
    ],
    ['Remind me how to boil an egg.', "Don't let me forget the rent on the 1st.", 'plan'],
    ['Remind me of the rules of chess.', 'Can you remind me to call the plumber at 3pm?', 'plan'],
    [
      'Is my dentist appointment tomorrow?',
      'My dentist appointment is tomorrow at 9, remind me.',
      'plan',
    ],
    ['Did I have a meeting yesterday?', 'I have a job interview next Tuesday.', 'plan'],
    [
      'If I have an interview next week, what should I wear?',
      'I have an interview next week.',
      'plan',
    ],
    ['She went to the dentist yesterday.', 'I went to the dentist yesterday.', 'other'],
    ['My sister went to the dentist yesterday.', 'Yesterday, I went to the dentist.', 'other'],
    ['I had a long day yesterday.', 'I had my first driving lesson last week.', 'other'],
    ['I went to bed late last night.', 'We went to Porto last month.', 'other'],
  ])('no for %j; yes for %j (%s)', async (negative, positive, category) => {
    expect(await gate.judge(negative)).toMatchObject({ decision: 'no' });
    const v = await gate.judge(positive);
    expect(v).toMatchObject({ decision: 'yes', category });
    expect(v.reason).toMatch(new RegExp(`^${category} \\(`));
  });

  // The owner's current project, employer, home, relationships and routines, and their changes.
  it.each([
    ['Am I still on Project Falcon?', "I'm on Project Falcon.", 'identity'],
    ["I'm on my way home.", "I'm on Heron now.", 'identity'],
    [
      'Move the Falcon ticket onto the Heron board.',
      'They moved me off Falcon onto Heron.',
      'identity',
    ],
    ['Which team did I switch to?', 'I switched teams to payments.', 'identity'],
    ['I started the download.', 'I started at Globex on Monday.', 'identity'],
    ['I left the oven on!', 'I left Acme.', 'identity'],
    ['Tom left Acme last week.', "I don't work at Acme anymore.", 'correction'],
    ['We moved the couch to the other wall.', 'We moved to Lyon last month.', 'identity'],
    ['My friend says she left Acme.', 'My sister Lucía lives in Seville.', 'relationship'],
    ['We split the bill.', 'My girlfriend and I broke up.', 'relationship'],
    ['Every time I open the app it crashes.', 'I go climbing every Tuesday.', 'preference'],
    ['I used to run every morning.', 'I run every morning before work.', 'preference'],
    ['I stopped by the bakery on the way.', "I've stopped drinking coffee.", 'correction'],
    // Spanish
    ['¿En qué proyecto estoy?', 'Me cambiaron al proyecto Heron.', 'identity'],
    [
      'Mi jefe dice que me van a cambiar de equipo.',
      'Mi hermana se llama Lucía y vive en Sevilla.',
      'relationship',
    ],
    ['Si trabajara en Globex, ganaría más.', 'Trabajo en Globex desde enero.', 'identity'],
    ['Estoy en el tren.', 'Estoy en el equipo de pagos.', 'identity'],
    ['Ya no sé qué hacer.', 'He dejado de tomar café.', 'correction'],
    ['Voy al súper.', 'Voy a escalar todos los martes.', 'preference'],
    // French
    ["Est-ce que j'habite toujours à Lyon ?", "J'habite à Lyon depuis mars.", 'identity'],
    ["Ma collègue dit qu'elle vit à Lyon.", "Mon frère s'appelle Luc.", 'relationship'],
    ['Je viens de finir le rapport.', "J'ai quitté Acme en juin.", 'identity'],
    ['Je ne sais plus quoi faire.', 'Je ne bois plus de café.', 'correction'],
    ['Je suis dans le métro.', 'Je cours tous les matins.', 'preference'],
    // German
    ['Arbeite ich noch bei Siemens?', 'Ich arbeite jetzt bei Siemens.', 'identity'],
    [
      'Mein Chef sagt, er wohnt in Köln.',
      'Meine Schwester heißt Lena und wohnt in Wien.',
      'relationship',
    ],
    [
      'Wenn ich bei Siemens arbeiten würde, würde ich nach München ziehen.',
      'Seit Januar arbeite ich als Lehrerin.',
      'identity',
    ],
    ['Ich kann nicht mehr.', 'Ich habe aufgehört zu rauchen.', 'correction'],
    ['Ich gehe morgen einkaufen.', 'Jeden Dienstag gehe ich klettern.', 'preference'],
    // Portuguese
    ['Ainda trabalho na Globex?', 'Trabalho na Globex desde março.', 'identity'],
    ['A minha colega disse que mora em Lisboa.', 'O meu marido chama-se João.', 'relationship'],
    ['Se eu trabalhasse na Globex, mudava-me para Lisboa.', 'Moro em Lisboa.', 'identity'],
    ['Saí do carro.', 'Saí da Acme.', 'identity'],
    ['Já não sei o que fazer.', 'Deixei de beber café.', 'correction'],
    ['Vou ao supermercado.', 'Vou ao ginásio todas as segundas.', 'preference'],
  ])('no for %j; yes for %j (%s)', async (negative, positive, category) => {
    expect(await gate.judge(negative)).toMatchObject({ decision: 'no' });
    const v = await gate.judge(positive);
    expect(v).toMatchObject({ decision: 'yes', category });
    expect(v.reason).toMatch(new RegExp(`^${category} \\(`));
  });

  it('an explicit "remember that …" is a yes with the capture’s category', async () => {
    expect(await gate.judge('remember that my dentist is Dr. Ortiz on Elm Street')).toMatchObject({
      decision: 'yes',
      category: 'relationship',
    });
    expect(await gate.judge('do you remember what I said?')).toMatchObject({ decision: 'no' });
  });

  it('is deterministic, never undecided, and says it is the pattern gate', async () => {
    expect(gate.name).toBe('pattern');
    const a = await gate.judge('I moved to Porto, not Lisbon. Can you update that?');
    const b = await gate.judge('I moved to Porto, not Lisbon. Can you update that?');
    expect(a).toEqual(b);
    for (const text of ['', '   ', '🎉', '\u0000', 'x'.repeat(10), '¿?', '我喜欢喝绿茶']) {
      expect((await gate.judge(text)).decision).toBe('no');
    }
  });

  it('reads a megabyte turn in bounded time and only its first characters', async () => {
    const tail = ' I am allergic to penicillin.';
    const t0 = performance.now();
    const v = await gate.judge(`${'Tell me about the weather. '.repeat(40_000)}${tail}`);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(v.decision).toBe('no');
    // Control: the same statement within the first PATTERN_GATE_MAX_CHARS characters.
    const early = `${'Tell me about the weather. '.repeat(10)}${tail}`;
    expect(early.length).toBeLessThan(PATTERN_GATE_MAX_CHARS);
    expect((await gate.judge(early)).decision).toBe('yes');
  });

  it('an aborted signal rejects with CANCELLED; an open one judges', async () => {
    const err = await gate
      .judge('I live in Porto.', { signal: AbortSignal.abort() })
      .catch((e) => e);
    expect(KeelError.isInstance(err) && err.code).toBe('CANCELLED');
    expect(
      await gate.judge('I live in Porto.', { signal: new AbortController().signal }),
    ).toMatchObject({ decision: 'yes' });
  });
});
