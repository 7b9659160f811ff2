// A time phrase said with a statement, wherever the language puts it, is no part of the slot's
// key or value: capture hands it over as `when` for the validity's start.
import { describe, expect, it } from 'vitest';
import { captureExplicit } from './capture.js';

describe('capture: a leading, trailing or middle time phrase leaves the key and the value', () => {
  it.each([
    ['remember that since 2024 I work at Acme', 'profile/employer', 'Acme', 'since 2024'],
    ['remember that on 12 May 2025 I moved to Porto', 'profile/home', 'Porto', 'on 12 May 2025'],
    ['remember that on March 3rd I moved to Porto', 'profile/home', 'Porto', 'on March 3rd'],
    ['remember that I moved to Porto on March 3rd', 'profile/home', 'Porto', 'on March 3rd'],
    ['recuerda que desde ayer vivo en Sevilla', 'profile/home', 'Sevilla', 'desde ayer'],
    [
      'recuerda que el 3 de febrero me mudé a Granada',
      'profile/home',
      'Granada',
      'el 3 de febrero',
    ],
    [
      'souviens-toi que depuis 2022 je travaille chez Decathlon',
      'profile/employer',
      'Decathlon',
      'depuis 2022',
    ],
    [
      'souviens-toi que le 14 février j’ai emménagé à Lille',
      'profile/home',
      'Lille',
      'le 14 février',
    ],
    [
      'merk dir, dass ich seit gestern bei Siemens arbeite',
      'profile/employer',
      'Siemens',
      'seit gestern',
    ],
    [
      'merk dir: ich arbeite seit gestern bei Siemens',
      'profile/employer',
      'Siemens',
      'seit gestern',
    ],
    ['lembra que desde ontem moro em Lisboa', 'profile/home', 'Lisboa', 'desde ontem'],
    ['lembra que ontem comecei na Embraer', 'profile/employer', 'Embraer', 'ontem'],
    // plain statements: verb second after the phrase, a day's ordinal full stop, a dropped
    // subject, and a date that beats "now"
    ['seit 2021 arbeite ich bei SAP', 'profile/employer', 'SAP', 'seit 2021'],
    ['am 15. März habe ich bei Lidl angefangen', 'profile/employer', 'Lidl', 'am 15. März'],
    [
      'started at Initech on the 3rd of March, so almost a year now',
      'profile/employer',
      'Initech',
      'on the 3rd of March',
    ],
  ])('%j → %s %j, said %j', (text, slot, value, when) => {
    const c = captureExplicit(text)!;
    expect(`${c.kind}/${c.key}`).toBe(slot);
    expect(c.value).toBe(value);
    expect(c.when).toBe(when);
  });

  it('a note keeps a time phrase inside its words; one opening it dates the note and leaves its key', () => {
    const due = captureExplicit('remember that the boiler service is due in March')!;
    expect([due.kind, due.value, due.when]).toEqual([
      'note',
      'The boiler service is due in March',
      undefined,
    ]);
    const piano = captureExplicit('remember that in January I started learning the piano')!;
    expect(piano.kind).toBe('note');
    expect(piano.value).toBe('I started learning the piano');
    expect(piano.key).not.toMatch(/january/);
    expect(piano.when).toBe('in January');
  });

  it('a date that is the value stays the value, with no start; a name that is a weekday stays whole', () => {
    const birthday = captureExplicit('remember that my birthday is on 3 May')!;
    expect([birthday.kind, birthday.key, birthday.value, birthday.when]).toEqual([
      'profile',
      'birthday',
      'on 3 May',
      undefined,
    ]);
    const river = captureExplicit('remember that Sunday River is my favourite ski area')!;
    expect(river.value).toBe('Sunday River is my favourite ski area');
    expect(river.when).toBeUndefined();
    // Control: a statement with no time phrase carries no `when`.
    expect(captureExplicit('remember that I live in Porto')).toMatchObject({
      key: 'home',
      value: 'Porto',
    });
    expect(captureExplicit('remember that I live in Porto')?.when).toBeUndefined();
  });
});

describe('capture: a plain statement that a state of the owner’s began is a note at the turn', () => {
  it.each([
    [
      'in January I started learning the piano, grade 1 exam in June 🎹',
      'I started learning the piano',
      'in January',
    ],
    [
      'as of today I’m on the night shift rotation at Westmead, ugh',
      'I’m on the night shift rotation at Westmead',
      'as of today',
    ],
    [
      'Two years ago I started volunteering at the Kibera library on saturdays, still going',
      'I started volunteering at the Kibera library on saturdays',
      'Two years ago',
    ],
    ['desde 2019 juego al pádel los martes', 'Juego al pádel los martes', 'desde 2019'],
    [
      'since Monday I’ve been running every morning',
      'I’ve been running every morning',
      'since Monday',
    ],
    // a change of state said with when
    ['I adopted a greyhound last week', 'I adopted a greyhound', 'last week'],
    ['I moved to a new flat last week', 'I moved to a new flat', 'last week'],
    ['el mes pasado me mudé a un piso nuevo', 'Me mudé a un piso nuevo', 'el mes pasado'],
    // another language's "about someone" rule does not take the owner's subject for a name
    ['Je me suis inscrite au YMCA hier soir, enfin !', 'Je me suis inscrite au YMCA', 'hier soir'],
    [
      'Ich bin seit gestern stolze Besitzerin eines Katers namens Gustav',
      'Ich bin stolze Besitzerin eines Katers namens Gustav',
      'seit gestern',
    ],
    ['Sou sócio do Sporting desde 2022', 'Sou sócio do Sporting', 'desde 2022'],
    // a clause that only describes it stays with it
    [
      'we got a dog on Friday — a beagle called Waffles',
      'We got a dog — a beagle called Waffles',
      'on Friday',
    ],
  ])('%j → a note %j, begun %j', (line, value, when) => {
    const c = captureExplicit(line)!;
    expect(c).toMatchObject({ trigger: 'plain', kind: 'note', value, when, about: 'owner' });
    expect(c.key).not.toMatch(/ve_|january|years|2019|monday|week|pasado/);
  });

  it.each([
    'I had pizza yesterday', // happened once: began nothing
    'I’m tired',
    'I might start yoga next month',
    'Yesterday Sam moved to Oslo',
    'Sam plays golf since 2020',
    'do I play padel since 2019?',
    'I adopted a greyhound', // a change with no when is no note offline
    'I went to the gym yesterday',
  ])('%j is no note (control: a state that began is)', (line) => {
    expect(captureExplicit(line)).toBeNull();
    expect(captureExplicit('since 2020 I play golf')?.kind).toBe('note');
  });

  it('"remember that I’ve …" is the owner’s, not someone called "ve"', () => {
    expect(captureExplicit('remember that I’ve been running every morning')).toMatchObject({
      kind: 'note',
      about: 'owner',
    });
  });
});

describe('capture: a plain statement of a state that holds now, naming something, is a note', () => {
  it.each([
    ['I drive a Honda Civic', 'I drive a Honda Civic'],
    [
      'I’m taking an evening Japanese course at George Brown',
      'I’m taking an evening Japanese course at George Brown',
    ],
    ['I’m a Spurs fan now', 'I’m a Spurs fan'],
    ['we have a cabin near Lake Tahoe', 'We have a cabin near Lake Tahoe'],
    ['tengo un Seat Ibiza rojo', 'Tengo un Seat Ibiza rojo'],
    ['juego en el equipo de vóley del club Ferro', 'Juego en el equipo de vóley del club Ferro'],
    ["j'ai un chien qui s'appelle Caramel", "J'ai un chien qui s'appelle Caramel"],
    ['ich studiere an der TU München', 'Ich studiere an der TU München'],
    ['jogo vôlei no Clube Pinheiros', 'Jogo vôlei no Clube Pinheiros'],
  ])('%j → a note %j, its start unknown', (line, value) => {
    const c = captureExplicit(line)!;
    expect(c).toMatchObject({ trigger: 'plain', kind: 'note', value, about: 'owner' });
    expect(c.when).toBeUndefined();
  });

  it.each([
    'I’m meeting Sam at Starbucks tomorrow', // an event, with its day
    'I think Arsenal will win', // a thought
    'I want a Tesla', // a wish
    'I drove the Civic to Galway', // a past
    'I have to call Dr. Lee', // an obligation
    'I drive a car', // names nothing in particular
    'ich habe einen Hund', // a German noun alone is no name
    'ich habe bei Lidl eingekauft', // a German perfect
    "j'ai mangé chez Paul", // a French perfect
    'quiero un Seat León', // a wish
    'Sam drives a Tesla', // someone else's
    'I’m SO happy to be stuck at Heathrow again 🙃', // irony
    'I am Batman lol', // a joke
  ])('%j is no note (control: "I drive a Tesla" is)', (line) => {
    expect(captureExplicit(line)).toBeNull();
    expect(captureExplicit('I drive a Tesla')?.kind).toBe('note');
  });
});

describe('capture: a slot placed in the clause before "and", and a start said in the past', () => {
  it('"… nach Leipzig gezogen und will nie wieder weg" → home Leipzig (control: a name with "and")', () => {
    expect(
      captureExplicit('Ich bin vor drei Jahren nach Leipzig gezogen und will nie wieder weg'),
    ).toMatchObject({ key: 'home', value: 'Leipzig', when: 'vor drei Jahren' });
    expect(captureExplicit('I live in Trinidad and Tobago')).toMatchObject({
      key: 'home',
      value: 'Trinidad and Tobago',
    });
  });

  it('"they put me on the Atlas migration project" is the current project', () => {
    expect(
      captureExplicit("Last month they put me on the Atlas migration project, it's a beast"),
    ).toMatchObject({ kind: 'project', value: 'Atlas migration project', when: 'Last month' });
  });

  it('a start said in the past is marked so (its weekday is the last one); one said now is not', () => {
    expect(captureExplicit("J'ai commencé chez Airbus à Toulouse vendredi")).toMatchObject({
      key: 'employer',
      when: 'vendredi',
      past: true,
    });
    expect(captureExplicit('I work at Globex on Saturday')?.past).toBeUndefined();
  });
});

describe('capture: a place to live is a place, not a kind of home', () => {
  it('"I moved to a new flat" leaves the home slot; "I moved to Lyon" fills it (control)', () => {
    expect(captureExplicit('remember that I moved to a new flat')?.key).not.toBe('home');
    expect(captureExplicit('remember that I moved to Lyon')).toMatchObject({
      key: 'home',
      value: 'Lyon',
    });
    expect(captureExplicit('letztes Jahr bin ich nach Hamburg umgezogen')).toMatchObject({
      key: 'home',
      value: 'Hamburg',
      when: 'letztes Jahr',
    });
  });
});

describe('capture: marriages and starts said with when, in every language', () => {
  it.each([
    ['Two years ago I married Priya.', 'relationship/spouse', 'Priya'],
    ['Me casei com o Rafael em 12 de abril de 2025, na praia', 'relationship/spouse', 'Rafael'],
    ["J'ai commencé chez Airbus à Toulouse vendredi", 'profile/employer', 'Airbus à Toulouse'],
    ['desde el lunes trabajo en Mercadona, turno de mañana', 'profile/employer', 'Mercadona'],
    [
      'Letzten Dienstag hab ich bei der Deutschen Bahn angefangen, als Fahrdienstleiterin.',
      'profile/employer',
      'Deutschen Bahn',
    ],
  ])('%j → %s %j', (line, slot, value) => {
    const c = captureExplicit(line)!;
    expect(`${c.kind}/${c.key}`).toBe(slot);
    expect(c.value).toBe(value);
    expect(c.when).toBeTruthy();
  });

  it('someone else’s move is not the owner’s (control: the owner’s is)', () => {
    expect(captureExplicit('Sam moved to Oslo in May')).toBeNull();
    expect(captureExplicit('I moved to Oslo in May')?.key).toBe('home');
  });
});
