// Corrections by slot, not by phrase, through the real store: a new owner statement supersedes
// its slot's belief; a stop closes it (history kept); a change from A to B closes A and opens B;
// a statement that places nothing but overlaps a current owner belief becomes a pending question
// the owner answers either way. Each case seeds a control belief that must stay untouched.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Fact, MemoryStore } from '@keel/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureOwnerStatement, type OwnerCapture, subjectWords } from './capture.js';
import { OfflineSession } from './offline.js';

const DAY = 86_400_000;
let now = Date.UTC(2026, 5, 1, 12);
let dir: string;
let store: MemoryStore;
beforeEach(() => {
  now = Date.UTC(2026, 5, 1, 12);
  dir = mkdtempSync(join(tmpdir(), 'keel-corrections-'));
  store = MemoryStore.open(join(dir, 'keel.db'), { now: () => now });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The owner says `text` a day after the previous line; returns what capture did. */
function say(text: string): OwnerCapture {
  now += DAY;
  const episode = store.addEpisode({ channel: 'terminal', role: 'owner', text });
  const r = captureOwnerStatement(store, text, episode.id);
  expect(r.error).toBeNull();
  return r;
}

/** The current owner belief of a slot. */
const current = (kind: Fact['kind'], key: string) => store.current({ scope: 'owner', kind, key });
/** Whether some current owner belief's value holds `text` (case-insensitive). */
const held = (text: string) =>
  store.activeFacts('owner').some((f) => f.value.toLowerCase().includes(text.toLowerCase()));

/** The control every case keeps: the owner's allergy, untouched by any correction. */
function control(): Fact {
  return say('remember that I am allergic to shellfish').write!.fact!;
}
function expectControl(c: Fact) {
  expect(store.fact(c.id)).toMatchObject({ status: 'active', value: c.value, confidence: 1 });
}

describe('a new owner statement supersedes its slot', () => {
  // "my new number" names the held phone_number in fewer words: the same slot.
  it.each([
    ['remember that I live in Ghent', 'I live in Bruges now', 'home', 'Bruges'],
    ['remember that I work at Umbrella', 'I work at Soylent these days', 'employer', 'Soylent'],
    [
      'remember that my phone number is 0470 11 22 33',
      'my new number is 0470 99 88 77',
      'phone_number',
      '0470 99 88 77',
    ],
    ['remember that I am vegan', "I'm pescatarian now", 'diet', 'pescatarian'],
  ])('%j then %j', (first, second, key, value) => {
    const c = control();
    const old = say(first).write!.fact!;
    const r = say(second);
    expect(r.write).toMatchObject({ decision: 'update' });
    expect(current('profile', key)).toMatchObject({ value, source: 'owner_stated', confidence: 1 });
    expect(store.fact(old.id)).toMatchObject({ status: 'superseded' });
    expect(store.history({ scope: 'owner', kind: 'profile', key }).map((f) => f.id)).toContain(
      old.id,
    );
    expectControl(c);
  });
});

describe('a stop closes the owner belief of its slot (history kept)', () => {
  it.each([
    ['remember that I work at Initrode', "I'm not at Initrode anymore", 'Initrode'],
    ['remember that I work at Initrode', 'I handed in my notice and left Initrode', 'Initrode'],
    ['I live in Tampere', "I don't live in Tampere any more", 'Tampere'],
    ['my girlfriend is Noor', 'Noor and I broke up last month', 'Noor'],
    ['my girlfriend is Noor', 'remember that we split up', 'Noor'],
    ["I'm vegetarian", 'I am no longer vegetarian', 'vegetarian'],
    ['recuerda que trabajo en Inditex', 'ya no trabajo en Inditex', 'Inditex'],
    ['retiens que je travaille chez Michelin', 'je ne travaille plus chez Michelin', 'Michelin'],
    ['merk dir, dass ich bei Bayer arbeite', 'ich habe bei Bayer gekündigt', 'Bayer'],
    ['lembra que eu trabalho na Natura', 'saí da Natura semana passada', 'Natura'],
    ['remember that I play squash on Mondays', 'I gave up squash', 'squash'],
  ])('%j then %j', (first, second, old) => {
    const c = control();
    const before = say(first).write!.fact!;
    expect(before.value).toContain(old);
    const r = say(second);
    expect(r.closed.map((f) => f.id)).toContain(before.id);
    expect(store.fact(before.id)).toMatchObject({ status: 'retracted' });
    // Closed as of the line that said so, kept in history, not recalled as current.
    expect(store.fact(before.id)!.valid_to).toBe(now);
    expect(store.history(before).map((f) => f.id)).toContain(before.id);
    expect(held(old)).toBe(false);
    expectControl(c);
  });

  it('a stop naming nothing keel holds closes nothing', () => {
    const job = say('remember that I work at Initrode').write!.fact!;
    const r = say('I quit Globex');
    expect(r.closed).toEqual([]);
    expect(store.fact(job.id)!.status).toBe('active');
  });
});

describe('a stop followed by what holds instead supersedes the slot with the new value', () => {
  it.each([
    [
      'recuerda que trabajo en Telefónica',
      'ya no trabajo en Telefonica, ahora estoy en BBVA en el equipo de datos',
      'employer',
      'Telefónica',
      'BBVA',
    ],
    [
      'merk dir, dass ich in Köln wohne',
      'ich wohne nicht mehr in Köln, seit Januar in Leipzig-Plagwitz',
      'home',
      'Köln',
      'Leipzig-Plagwitz',
    ],
    [
      'remember that I work at Initrode',
      "I don't work at Initrode anymore, now I'm at Globex",
      'employer',
      'Initrode',
      'Globex',
    ],
  ])('%j then %j', (first, second, key, old, next) => {
    const c = control();
    const before = say(first).write!.fact!;
    expect(before.value).toBe(old);
    say(second);
    const now = current('profile', key)!;
    expect(now.value).toContain(next);
    expect(now.source).toBe('owner_stated');
    // The old value is history, not current.
    expect(store.fact(before.id)!.status).not.toBe('active');
    expect(store.history(now).map((f) => f.value)).toContain(old);
    expect(held(old)).toBe(false);
    expectControl(c);
  });

  it('a reason after the stop is not a new value: the belief is only closed', () => {
    const home = say('I live in Tampere').write!.fact!;
    const r = say("I don't live in Tampere any more, it was too cold");
    expect(r.closed.map((f) => f.id)).toEqual([home.id]);
    expect(current('profile', 'home')).toBeUndefined();
  });
});

describe('what follows a stop that names no slot, and whose stop it is', () => {
  it.each([
    [
      'I live in Bristol',
      'no longer in Bristol, in Cardiff since May',
      'home',
      'Bristol',
      'Cardiff',
    ],
    [
      'recuerda que trabajo en BBVA',
      'dejé el BBVA, ahora estoy en Santander, en la oficina de Boadilla',
      'employer',
      'BBVA',
      'Santander',
    ],
    [
      "j'habite à Lyon",
      "j'habite plus à Lyon, maintenant c'est Grenoble",
      'home',
      'Lyon',
      'Grenoble',
    ],
    [
      'souviens-toi que je suis végane',
      'je suis plus végane, je suis flexitarienne maintenant',
      'diet',
      'végane',
      'flexitarienne',
    ],
    [
      'ich wohne in Stuttgart',
      'wohne nicht mehr in Stuttgart, bin jetzt in Freiburg',
      'home',
      'Stuttgart',
      'Freiburg',
    ],
  ])('%j then %j', (first, second, key, old, next) => {
    const c = control();
    say(first);
    say(second);
    expect(current('profile', key)?.value).toBe(next);
    expect(held(old)).toBe(false);
    expectControl(c);
  });

  it('"B instead of A" and "swapped A for B" close A and keep B', () => {
    const oat = say('merk dir, dass ich Hafermilch trinke').write!.fact!;
    say('ich trinke jetzt Sojamilch statt Hafermilch');
    expect(held('Sojamilch')).toBe(true);
    expect(store.fact(oat.id)!.status).toBe('retracted');
    const tea = say('lembra que eu tomo chá preto de manhã').write!.fact!;
    say('troquei o chá preto por café');
    expect(held('café')).toBe(true);
    expect(store.fact(tea.id)!.status).toBe('retracted');
  });

  it('someone else leaving, or words in quotation marks, close nothing of the owner’s', () => {
    const job = say('je travaille chez Airbus Helicopters à Marignane').write!.fact!;
    expect(say('mon voisin a quitté Airbus pour Dassault, il est ravi').closed).toEqual([]);
    expect(say('Sam quit Airbus last year').closed).toEqual([]);
    expect(say('saw this tweet: "I quit Airbus to bake sourdough" lmao').closed).toEqual([]);
    expect(store.fact(job.id)!.status).toBe('active');
    // control: the owner's own stop does close it
    expect(say("j'ai quitté Airbus").closed.map((f) => f.id)).toEqual([job.id]);
  });

  it('a dated stop ends on its day; the new value follows with its start unknown', () => {
    const munich = say('I live in Munich').write!.fact!;
    say('I moved out of Munich on 28 February — I’m in Leipzig now');
    expect(current('profile', 'home')).toMatchObject({ value: 'Leipzig', valid_from: null });
    const old = store.fact(munich.id)!;
    expect(old.status).not.toBe('active');
    expect(new Date(old.valid_to!).toISOString().slice(0, 10)).toBe('2026-02-28');
  });
});

describe('a contrast names the value it corrects: "B, not A"', () => {
  it.each([
    [
      'remember that my GP is Dr. Okafor',
      "actually it's Dr. Lindqvist, not Dr. Okafor",
      'Dr. Okafor',
      'Dr. Lindqvist',
    ],
    [
      'recuerda que mi médico es el doctor Ferrer',
      'no es Ferrer, es la doctora Vidal',
      'Ferrer',
      'la doctora Vidal',
    ],
  ])('%j then %j', (first, second, old, next) => {
    const c = control();
    const before = say(first).write!.fact!;
    say(second);
    const now = store.current({ scope: 'owner', kind: before.kind, key: before.key })!;
    expect(now.value).toBe(next);
    expect(store.history(now).map((f) => f.value)).toContain(before.value);
    expect(held(old)).toBe(false);
    expectControl(c);
  });

  it('two denials correct nothing; a contrast naming nothing held changes nothing', () => {
    const gp = say('remember that my GP is Dr. Okafor').write!.fact!;
    say('not bad, not great');
    say("it's Lisbon, not Porto");
    expect(store.fact(gp.id)!.status).toBe('active');
  });

  it('"Acme let me go" ends the owner’s employer', () => {
    const job = say('remember that I work at Acme').write!.fact!;
    expect(say('Acme let me go last week').closed.map((f) => f.id)).toEqual([job.id]);
  });
});

describe('a corrected relation keeps the person, not the words around them', () => {
  it.each([
    [
      'merk dir, dass mein Zahnarzt Dr. Becker ist',
      'Korrektur: mein Zahnarzt ist eigentlich Dr. Wolff, nicht Becker',
      'zahnarzt',
      'Dr. Wolff',
    ],
    [
      'recuerda que mi médico es el doctor Ferrer',
      'perdona, en realidad mi médico es la doctora Vidal, no Ferrer',
      'médico',
      'la doctora Vidal',
    ],
  ])('%j then %j', (first, second, key, value) => {
    say(first);
    say(second);
    expect(current('relationship', key)?.value).toBe(value);
  });

  it.each([
    ["I'm married to Priya", 'spouse', 'Priya'],
    ['ich bin seit 2020 mit Jonas verheiratet', 'spouse', 'Jonas'],
    ['je suis en couple avec Mathis depuis 2022', 'partner', 'Mathis'],
    ['sou casada com o Thiago desde 2018', 'spouse', 'Thiago'],
    ['estoy saliendo con Lucía', 'partner', 'Lucía'],
  ])('%j → relationship/%s', (line, key, value) => {
    say(line);
    expect(current('relationship', key)).toMatchObject({ value, valid_from: null });
  });
});

describe('every sentence of a line is read', () => {
  it('a stop in the first sentence and the new value in the second', () => {
    const c = control();
    const arjun = say('remember that my boyfriend is Arjun').write!.fact!;
    const r = say('Arjun and I called it quits in January. my boyfriend is Kenji now, early days');
    expect(r.closed.map((f) => f.id)).toContain(arjun.id);
    expect(current('relationship', 'boyfriend')?.value).toBe('Kenji');
    expectControl(c);
  });

  it('a later sentence that asks or reports keeps nothing (control: a statement does)', async () => {
    const session = new OfflineSession(store, { channel: 'terminal' });
    await session.handle(
      'remember that I work at Globex. do I live in Lyon? Sam said he lives in Oslo.',
    );
    expect(current('profile', 'employer')?.value).toBe('Globex');
    expect(current('profile', 'home')).toBeUndefined();
    const reply = await session.handle('I live in Lyon now. I work at Initech these days.');
    expect(current('profile', 'home')?.value).toBe('Lyon');
    expect(current('profile', 'employer')?.value).toBe('Initech');
    // The reply shows both beliefs kept.
    expect(reply.text).toMatch(/Lyon/);
    expect(reply.text).toMatch(/Initech/);
  });
});

describe('the owner saying again what they forgot is the way back', () => {
  it('the same words in passing restore the forgotten belief; a mention about someone else does not', () => {
    const c = control();
    const milk = say('remember that I drink oat milk').write!.fact!;
    store.forget(milk.id);
    // control: said of someone else, it stays forgotten
    expect(say('my friend drinks oat milk too').write).toBeNull();
    expect(held('oat milk')).toBe(false);
    const r = say('I drink oat milk, just so you know, the other stuff makes me ill');
    expect(r.write?.fact).toMatchObject({ value: 'I drink oat milk', source: 'owner_stated' });
    expect(held('oat milk')).toBe(true);
    expectControl(c);
  });
});

describe('a change from A to B closes A and opens B', () => {
  it.each([
    [
      'remember that my gym is PureGym',
      'I switched from PureGym to Gymbox, closer to work',
      'gym',
      'Gymbox',
      'PureGym',
    ],
    ['remember that my bank is Monzo', 'I swapped Monzo for Starling', 'bank', 'Starling', 'Monzo'],
    [
      'remember that my bank is Monzo',
      'je suis passé de Monzo à Revolut',
      'bank',
      'Revolut',
      'Monzo',
    ],
  ])('%j then %j', (first, second, key, to, from) => {
    const c = control();
    const old = say(first).write!.fact!;
    say(second);
    expect(current('profile', key)).toMatchObject({ value: to, source: 'owner_stated' });
    expect(store.fact(old.id)).toMatchObject({ status: 'superseded' });
    expect(held(from)).toBe(false);
    expectControl(c);
  });

  it('a belief keyed by A itself is closed and B gets a slot of its own', () => {
    const c = control();
    const tea = say('remember that I love green tea').write!.fact!;
    expect(tea.key).toBe('green_tea');
    say('I went from green tea to matcha');
    expect(store.fact(tea.id)).toMatchObject({ status: 'retracted' });
    expect(held('matcha')).toBe(true);
    expectControl(c);
  });
});

describe('an unplaceable statement that overlaps a current owner belief becomes a pending question', () => {
  function seed() {
    const c = control();
    const car = say('remember that I drive a red Fiat Panda').write!.fact!;
    const r = say('the Panda got written off in the crash, insurance pays out next week');
    expect(r.write).toBeNull();
    expect(r.questions).toHaveLength(1);
    return { c, car, q: r.questions[0]! };
  }

  it('it is listed in the review queue with the words and the belief, and the belief stays current', () => {
    const { c, car, q } = seed();
    const queue = store.review();
    expect(queue.questions.map((x) => [x.id, x.factId])).toEqual([[q.id, car.id]]);
    expect(queue.questions[0]!.said).toContain('Panda got written off');
    expect(store.fact(car.id)!.status).toBe('active');
    expectControl(c);
  });

  it('yes closes the belief (history kept)', () => {
    const { c, car, q } = seed();
    store.answer(q.id, 'yes', { channel: 'terminal' });
    expect(store.fact(car.id)).toMatchObject({ status: 'retracted' });
    expect(store.review().questions).toEqual([]);
    expectControl(c);
  });

  it('no leaves the belief as it was', () => {
    const { c, car, q } = seed();
    store.answer(q.id, 'no', { channel: 'terminal' });
    expect(store.fact(car.id)).toMatchObject({ status: 'active', confidence: 1 });
    expect(store.review().questions).toEqual([]);
    expectControl(c);
  });

  it('a statement about something else raises no question (control: one that overlaps does)', () => {
    say('remember that I live in Portland');
    expect(say('my brother lives in Tucson, he visits in spring').questions).toEqual([]);
    expect(say('what is the weather in Portland?').questions).toEqual([]);
    expect(say('Portland flooded, we are moving out of the city').questions.length).toBe(1);
  });
});

describe('an ending said of its subject closes the belief that names it, whoever it is', () => {
  it('"Mochi died on Saturday night" closes the belief holding "Mochi" as of that Saturday', () => {
    const c = control();
    const cat = say("my cat's name is Mochi").write!.fact!;
    const r = say('Mochi died on Saturday night. 14 years. I’m wrecked');
    expect(r.closed.map((f) => f.id)).toEqual([cat.id]);
    const closed = store.fact(cat.id)!;
    expect(closed.status).toBe('retracted');
    // 2026-06-03 is a Wednesday: the Saturday before is 2026-05-30.
    expect(new Date(closed.valid_to!).toISOString().slice(0, 10)).toBe('2026-05-30');
    expectControl(c);
  });

  it('"the course is over!! last class was last Thursday" dates the end from the later sentence', () => {
    const course = say('I’m taking an evening Japanese course at George Brown').write!.fact!;
    expect(course.kind).toBe('note');
    const r = say('the japanese course is over!! last class was last thursday 🎉');
    expect(r.closed.map((f) => f.id)).toEqual([course.id]);
    expect(new Date(store.fact(course.id)!.valid_to!).toISOString().slice(0, 10)).toBe(
      '2026-05-28',
    );
  });

  it('a subject that holds the value closes its belief ("my job at Deloitte is over")', () => {
    const job = say('remember that I work at Deloitte').write!.fact!;
    expect(say('my job at Deloitte is over').closed.map((f) => f.id)).toEqual([job.id]);
  });

  it('an ending of something a belief does not name as a whole closes nothing (control: one it names)', () => {
    const friend = say('remember that my best friend is Sam').write!.fact!;
    expect(say('Sam’s dad died last week').closed).toEqual([]);
    expect(store.fact(friend.id)!.status).toBe('active');
    expect(say('Sam died last week').closed.map((f) => f.id)).toEqual([friend.id]);
  });
});

describe('the owner calling a partner "my ex" closes the couple, and only that partner', () => {
  it.each([
    ['my girlfriend is Léonie', 'mon ex, Léonie, est passée récupérer ses affaires hier'],
    ['my husband is Tomasz', 'me and my ex, Tomasz, still split the school run'],
  ])('%j then %j', (first, second) => {
    const c = control();
    const partner = say(first).write!.fact!;
    const sister = say('my sister is Ana').write!.fact!;
    expect(say(second).closed.map((f) => f.id)).toEqual([partner.id]);
    expect(store.fact(sister.id)!.status).toBe('active');
    expectControl(c);
  });

  it('an ex named who is no partner held closes nothing', () => {
    const partner = say('my boyfriend is Kenji').write!.fact!;
    expect(say('my ex, Arjun, texted me out of nowhere').closed).toEqual([]);
    expect(store.fact(partner.id)!.status).toBe('active');
  });
});

describe('a state that held until a day is kept in history, ended that day, its start unknown', () => {
  it('"I lived in Galway until March 1st, now I\'m in Cork" → Galway until March 1st, Cork now', () => {
    now = Date.UTC(2026, 2, 9, 12);
    const c = control();
    say("I lived in Galway until March 1st, now I'm in Cork.");
    const galway = store
      .history({ scope: 'owner', kind: 'profile', key: 'home' })
      .find((f) => f.value === 'Galway')!;
    expect(galway).toMatchObject({ status: 'retracted', valid_from: null, source: 'owner_stated' });
    expect(new Date(galway.valid_to!).toISOString().slice(0, 10)).toBe('2026-03-01');
    expect(current('profile', 'home')).toMatchObject({ value: 'Cork' });
    expectControl(c);
  });

  it('another value held now is left as it is; an end that names no day keeps nothing', () => {
    say('remember that I live in Cork');
    say('I lived in Galway until March 1st');
    expect(current('profile', 'home')).toMatchObject({ value: 'Cork' });
    expect(
      store
        .history({ scope: 'owner', kind: 'profile', key: 'home' })
        .some((f) => f.value === 'Galway'),
    ).toBe(false);
    say('I worked at Deloitte until 2024');
    expect(
      store
        .history({ scope: 'owner', kind: 'profile', key: 'employer' })
        .some((f) => f.value === 'Deloitte'),
    ).toBe(false);
  });
});

describe('what holds instead, said after a stop, is the owner’s word', () => {
  it('"sold the Civic last weekend, I drive a Tesla Model 3 now" closes the Civic and keeps the Tesla', () => {
    const civic = say('remember that I drive a 2015 Honda Civic').write!.fact!;
    const r = say('sold the Civic last weekend, I drive a Tesla Model 3 now');
    expect(r.closed.map((f) => f.id)).toEqual([civic.id]);
    expect(r.write?.fact).toMatchObject({
      value: 'I drive a Tesla Model 3',
      source: 'owner_stated',
    });
  });

  it('a clause after a stop that states nothing adds nothing', () => {
    say('remember that I drive a 2015 Honda Civic');
    const r = say('sold the Civic last weekend, what a relief');
    expect(r.closed).toHaveLength(1);
    expect(r.write).toBeNull();
  });
});

describe('an end announced, not yet come, is asked about and closes nothing', () => {
  it('"handed in my notice today, last day is the end of April" asks about the employer', () => {
    const c = control();
    const job = say('remember that I work at Ørsted in Fredericia').write!.fact!;
    const r = say('handed in my notice today, last day is the end of April');
    expect(r.closed).toEqual([]);
    expect(r.questions.map((q) => q.factId)).toEqual([job.id]);
    expect(store.fact(job.id)).toMatchObject({ status: 'active', confidence: 1 });
    expectControl(c);
  });
});

describe('a fragment gives a slot its new value', () => {
  it.each([
    ['my GP is Dr. Haddad', 'oh and GP — Dr. Nakamura these days', 'gp', 'Dr. Nakamura'],
    [
      "mon numéro c'est le 06 71 43 92 18",
      "nouveau numéro : 07 58 20 16 44. l'ancien ne marche plus",
      'numéro',
      '07 58 20 16 44',
    ],
    [
      'meu número é (21) 99418-2750',
      'fyi mudei de número, agora é (21) 98207-3316',
      'número',
      '(21) 98207-3316',
    ],
  ])('%j then %j → %s = %j, the old value in history', (first, second, key, value) => {
    const c = control();
    const old = say(first).write!.fact!;
    say(second);
    expect(store.current({ scope: 'owner', kind: old.kind, key })).toMatchObject({
      value,
      source: 'owner_stated',
    });
    expect(store.fact(old.id)!.status).toBe('superseded');
    expectControl(c);
  });

  it('a value said alone takes the slot the same line closed, which ended on its day', () => {
    const home = say('I live in Mombasa').write!.fact!;
    say('Nairobi now. left Mombasa on the 3rd, sorry forgot to say');
    expect(current('profile', 'home')).toMatchObject({ value: 'Nairobi' });
    // 2026-06-03 is the line's day: "on the 3rd" is that day.
    expect(new Date(store.fact(home.id)!.valid_to!).toISOString().slice(0, 10)).toBe('2026-06-03');
  });

  it('a value said alone with nothing closed, or a clause, changes nothing', () => {
    say('I live in Mombasa');
    say('Nairobi now');
    say('tired now');
    expect(current('profile', 'home')).toMatchObject({ value: 'Mombasa' });
  });
});

describe('an ending verb ends what its object names, whatever its class of slot', () => {
  it('"Hab bei McFit gekündigt" ends the gym, not the job', () => {
    const job = say('ich arbeite bei Siemens').write!.fact!;
    const gym = say('mein Fitnessstudio ist das McFit am Alexanderplatz').write!.fact!;
    expect(gym.value).toBe('McFit am Alexanderplatz');
    expect(
      say('Hab bei McFit gekündigt – die Beiträge sind gestiegen').closed.map((f) => f.id),
    ).toEqual([gym.id]);
    expect(store.fact(job.id)!.status).toBe('active');
  });

  it('"not Nancy — Nantes" corrects the home', () => {
    say('souviens-toi que j’habite à Nancy');
    say('non attends, pas Nancy — Nantes ! je me suis mal exprimé');
    expect(current('profile', 'home')).toMatchObject({ value: 'Nantes' });
  });
});

describe('a line about someone or something else asks nothing of what it mentions', () => {
  it.each([
    'Bologna won 3–1 last night and the whole city was honking till 2am',
    'my brother just bought a flat in Bologna, lucky him',
    "my sister got a place in Bologna too, so we're practically neighbours now",
  ])('%j raises no question (control: the owner moving out of it does)', (line) => {
    say('remember that I live in Bologna');
    expect(say(line).questions).toEqual([]);
    expect(say('Bologna flooded, we are moving out of the city').questions).toHaveLength(1);
  });
});

describe('a state said after a clause about something else', () => {
  it('is the owner’s note, and asks whether it replaces what the first clause named', () => {
    const civic = say('I drive a Honda Civic').write!.fact!;
    const r = say(
      "turns out the Civic is a write-off after the crash, so I'm in a Skoda Octavia now",
    );
    expect(r.write?.fact).toMatchObject({
      value: "I'm in a Skoda Octavia",
      source: 'owner_stated',
    });
    expect(r.questions.map((q) => q.factId)).toEqual([civic.id]);
    // Control: a later clause that is not the owner's state keeps nothing.
    expect(say('the Civic is a write-off, so the insurer pays out').write).toBeNull();
  });
});

describe('plain statements are captured at the turn (offline)', () => {
  it.each([
    ['I live in Lyon now', 'home', 'Lyon'],
    ['I work at Globex these days', 'employer', 'Globex'],
    ['my new number is 0612 345 678', 'number', '0612 345 678'],
    ["I'm vegetarian now", 'diet', 'vegetarian'],
    ['since 2023 I work at Hooli', 'employer', 'Hooli'],
    // a fronted time phrase, German verb-second order, a chat's dropped subject, a first clause
    ['seit 2021 arbeite ich bei SAP', 'employer', 'SAP'],
    ['am 15. März habe ich bei Lidl angefangen, also bald ein Jahr', 'employer', 'Lidl'],
    ['started at Initech on the 3rd of March, so almost a year now', 'employer', 'Initech'],
    ['I started my new job at Mercari yesterday, onboarding all week', 'employer', 'Mercari'],
    ["From 1 Feb 2026 I'm renting a studio in Valletta", 'home', 'Valletta'],
  ])('%j → profile/%s', async (line, key, value) => {
    const session = new OfflineSession(store, { channel: 'terminal' });
    const reply = await session.handle(line);
    expect(reply.write?.fact).toMatchObject({
      kind: 'profile',
      key,
      value,
      source: 'owner_stated',
    });
  });

  it.each([
    'do I live in Lyon?',
    'remind me to call Globex',
    'what if I worked at Globex',
    'Sam said he works at Globex',
    'my brother lives in Lyon',
    'my day was awful',
    'Ahmed started at Globex',
    'dass ich bei Globex arbeite, weiß niemand',
  ])('%j is not captured (control: a statement is)', async (line) => {
    const session = new OfflineSession(store, { channel: 'terminal' });
    expect((await session.handle(line)).write).toBeUndefined();
    expect((await session.handle('I live in Lyon now')).write?.fact?.value).toBe('Lyon');
  });
});

describe('"remember that" in other scripts', () => {
  it.each([
    ['запомни, что моя собака Шарик', 'ru'],
    ['запам’ятай, що я люблю борщ', 'uk'],
    ['θυμήσου ότι μου αρέσει ο καφές', 'el'],
    ['תזכור שאני אוהב קפה', 'he'],
    ['تذكر أن أختي تسكن في عمان', 'ar'],
    ['覚えておいて、私の猫はタマです', 'ja'],
    ['记住，我喜欢喝绿茶', 'zh'],
    ['기억해 줘, 나는 커피를 좋아해', 'ko'],
    ['याद रखो कि मुझे चाय पसंद है', 'hi'],
    ['จำไว้ว่าฉันชอบกาแฟ', 'th'],
  ])('%j is kept in the owner’s words', (line) => {
    const r = say(line);
    expect(r.write?.decision).toBe('create');
    const value = r.write!.fact!.value;
    // The statement after the trigger, not the trigger.
    expect(line.endsWith(value.slice(1)) || line.includes(value)).toBe(true);
    // Control: a question after the same trigger is not kept.
    expect(say(`${line}?`).write).toBeNull();
  });
});

describe('subjectWords', () => {
  it('compares words in spaced scripts and two-letter runs in unspaced ones', () => {
    expect([...subjectWords('I drive a red Fiat Panda')]).toEqual(
      expect.arrayContaining(['drive', 'red', 'fiat', 'panda']),
    );
    expect(subjectWords('我在阿里巴巴工作').has('工作')).toBe(true);
    expect(subjectWords('it is in')).toEqual(new Set());
  });
});

describe('a stop dated by its own words ends on that day', () => {
  it('"I left Nubank yesterday" ends the belief yesterday; an undated stop ends at the turn (control)', () => {
    const c = control();
    say('remember that I work at Nubank');
    say('remember that I live in Lisbon');
    const left = say('I left Nubank yesterday');
    expect(left.closed.map((f) => f.value)).toEqual(['Nubank']);
    const nubank = left.closed[0]!;
    const yesterday = Date.UTC(2026, 5, 4); // said on 5 June at 12:00 UTC
    expect(store.fact(nubank.id)).toMatchObject({ status: 'retracted', valid_to: yesterday });
    const moved = say("I don't live in Lisbon any more");
    expect(moved.closed.map((f) => f.value)).toEqual(['Lisbon']);
    expect(store.fact(moved.closed[0]!.id)!.valid_to).toBe(now);
    expectControl(c);
  });
});

describe('where the owner is now, in the slot the line names or mentions', () => {
  it('"switched gyms, i\'m at Equinox" is the gym’s new value (control: the employer stays)', () => {
    const job = say('I work at Globex').write!.fact!;
    const gym = say('my gym is 24 Hour Fitness on Van Ness').write!.fact!;
    say("switched gyms, i'm at Equinox now, the pool alone is worth it");
    expect(current('profile', 'gym')?.value).toBe('Equinox');
    expect(store.fact(gym.id)!.status).toBe('superseded');
    expect(store.fact(job.id)!.status).toBe('active');
  });

  it('"last day at Globex was friday, i\'m at Monzo now" replaces the employer it mentions', () => {
    say('I work at Globex');
    say("last day at globex was friday 🥲 i'm at Monzo now, fraud squad");
    expect(current('profile', 'employer')?.value).toBe('Monzo');
  });

  it('"I\'m at Monzo" alone names no slot: nothing is replaced', () => {
    say('I work at Globex');
    say('my gym is Equinox');
    say("I'm at Monzo right now, waiting for a friend");
    expect(current('profile', 'employer')?.value).toBe('Globex');
    expect(current('profile', 'gym')?.value).toBe('Equinox');
  });
});

describe('"a new <slot>, <name>" gives a held slot its new value', () => {
  it('with the day the line names', () => {
    const feld = say('my therapist is Dr. Feld').write!.fact!;
    say('started with a new therapist yesterday, dr. anya kowalczyk. feld retired');
    const now = current('relationship', 'therapist');
    expect(now?.value).toBe('dr. anya kowalczyk');
    expect(now?.valid_from).not.toBeNull();
    expect(store.fact(feld.id)!.status).toBe('superseded');
  });
});

describe('what holds instead, in each clause after a stop', () => {
  it('"left dell in march, we relocated to raleigh and i\'m at Red Hat now": two slots move', () => {
    say('i live in austin, east side');
    say('and i work at dell, firmware stuff');
    expect(current('profile', 'employer')?.value).toBe('dell');
    say("big year — left dell in march, we relocated to raleigh and i'm at Red Hat now");
    expect(current('profile', 'home')?.value).toBe('raleigh');
    expect(current('profile', 'employer')?.value).toBe('Red Hat');
  });

  it('"traded the mazda in three days ago and got a kia EV6": the stop’s day starts the new car', () => {
    const mazda = say('i drive a mazda 3, the red hatchback').write!.fact!;
    const r = say('traded the mazda in three days ago and got a kia EV6 😍 charging is a hobby');
    expect(store.fact(mazda.id)!.status).toBe('retracted');
    const ev6 = store.activeFacts('owner').find((f) => f.value.includes('EV6'));
    expect(ev6?.valid_from).toBe(now - 3 * DAY - (now % DAY));
    expect(r.write?.fact?.id).toBe(ev6?.id);
  });

  it('a stop with nothing after it writes nothing new (control)', () => {
    const mazda = say('i drive a mazda 3').write!.fact!;
    expect(say('traded the mazda in last week').write).toBeNull();
    expect(store.fact(mazda.id)!.status).toBe('retracted');
  });
});

describe('a mistake named and put right, and a state that goes on', () => {
  it('"no wait i said tuesday but it\'s thursday" corrects the slot holding tuesday', () => {
    const night = say('remember that my bouldering night is tuesday').write!.fact!;
    say("no wait i said tuesday but it's thursday, tuesday is the kids' swimming");
    expect(current('profile', 'bouldering_night')?.value).toMatch(/thursday/i);
    expect(store.fact(night.id)!.status).toBe('superseded');
  });

  it('"still seeing dr haddad" asks nothing (control: a line that may replace her asks)', () => {
    const dentist = say('my dentist is Dr. Leila Haddad in Dearborn').write!.fact!;
    expect(say("still seeing dr haddad for the crown thing, she's booked me in").questions).toEqual(
      [],
    );
    expect(
      say('I stopped seeing dr haddad, the new one is closer').closed.map((f) => f.id),
    ).toContain(dentist.id);
  });
});

describe('a language’s name in a chat’s lower case names something', () => {
  it.each([
    "j'apprends le néerlandais, cours du soir à Ixelles",
    'estudio alemán en el Goethe',
    'ich lerne japanisch',
    'estou aprendendo inglês',
  ])('%j is the owner’s note (control: "je mange une pomme" is not)', (line) => {
    expect(say(line).write?.fact?.kind).toBe('note');
    expect(say('je mange une pomme').write).toBeNull();
  });
});

describe('one slot for the current project, however it is said', () => {
  it('"pulled me onto Borealis" replaces "my current project is the Atlas migration"', () => {
    const atlas = say('my current project is the Atlas migration').write!.fact!;
    expect(atlas).toMatchObject({ kind: 'project', key: 'current_project' });
    say('they pulled me onto Borealis on monday, atlas is on ice till Q4');
    expect(current('project', 'current_project')?.value).toBe('Borealis');
    expect(store.fact(atlas.id)!.status).toBe('superseded');
  });
});

describe('a note of what else the line says is kept beside a stop', () => {
  it('"got an iphone 15, traded in the galaxy": the galaxy closed, the iphone kept', () => {
    const galaxy = say('i use a samsung galaxy s21').write!.fact!;
    const r = say('got an iphone 15 a few weeks ago, traded in the galaxy at best buy');
    expect(store.fact(galaxy.id)!.status).toBe('retracted');
    expect(r.write?.fact?.value).toMatch(/iphone 15/i);
    expect(r.write?.fact?.valid_from).toBeNull();
  });
});

describe('a couple’s ending said of "X and I", and a new number by its shape', () => {
  it('"yanis et moi c\'est fini" closes the partner (control: "over the moon" closes nothing)', () => {
    const sam = say('my boyfriend is Sam').write!.fact!;
    expect(say('Sam and I are over the moon about the flat').closed).toEqual([]);
    expect(say('Sam and I are done.').closed.map((f) => f.id)).toEqual([sam.id]);
    const yanis = say("mon copain s'appelle Yanis").write!.fact!;
    expect(
      say("yanis et moi c'est fini. je préfère pas en parler").closed.map((f) => f.id),
    ).toEqual([yanis.id]);
  });

  it('"no but seriously my number changed, it\'s … now" replaces the held mobile', () => {
    const mobile = say('note that my mobile is 07700 900461').write!.fact!;
    say("new phone who dis 😂 no but seriously my number changed, it's 07700 900982 now");
    expect(current('profile', mobile.key)?.value).toBe('07700 900982');
    expect(store.fact(mobile.id)!.status).toBe('superseded');
  });
});

describe('a change kept as said leaves its time phrase out of the note', () => {
  it('"two weeks ago i swapped the alliance classes for a private tutor": dated, not worded', () => {
    say("i'm learning french at the Alliance Française in south ken");
    const r = say('two weeks ago i swapped the alliance classes for a private tutor, Mme Girard');
    const note = r.write?.fact;
    expect(note?.value).toMatch(/^I swapped the alliance classes for a private tutor/);
    expect(note?.value).not.toMatch(/weeks ago/);
    expect(note?.valid_from).toBe(now - 14 * DAY - (now % DAY));
  });
});

describe('where the owner went, once their home closed, is their home', () => {
  it('"not in melbourne anymore, packed up and went back to perth to be near mum"', () => {
    const melbourne = say("i'm based in melbourne, brunswick east").write!.fact!;
    say("we're not in melbourne anymore btw, packed up and went back to perth to be near mum");
    expect(store.fact(melbourne.id)!.status).not.toBe('active');
    expect(current('profile', 'home')?.value).toBe('perth');
  });

  it('a trip said with no home closed moves nothing (control)', () => {
    say('I live in Melbourne');
    say('went back to perth for the weekend, lovely');
    expect(current('profile', 'home')?.value).toBe('Melbourne');
  });
});
