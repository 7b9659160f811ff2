/**
 * German: "merk dir, dass …", "denk daran, dass …", "vergiss nicht, dass …", "nenn mich …", and
 * the shapes of statement that land in a known slot, in main-clause order after a colon ("meine
 * Schwester heißt Lucía") and verb-last after "dass" ("dass meine Schwester Lucía heißt").
 *
 * @module
 */
import { DIETS } from '../patterns/vocabulary.js';
import {
  aboutSomeone,
  allergy,
  diet,
  employer,
  favourite,
  home,
  ownName,
  partner,
  possessive,
  preference,
  preferredName,
  project,
} from './build.js';
import { type LanguageRules, namesSomethingAmongNouns, wordsRe } from './common.js';

/** Not a letter: the end of a word that may end in an umlaut or ß. */
const E = '(?![\\p{L}\\p{M}])';
const PROJEKT = /projekt/iu;
/** Time words that may stand before the rest of a clause. */
const NOW = '(?:(?:jetzt|nun|inzwischen|mittlerweile|derzeit|gerade|seit kurzem) )*';
/** A noun phrase in verb-last order: lower-case adjectives, then a capitalised noun. */
const NOUN = '((?:\\p{Ll}\\S* )*\\p{Lu}\\S*)';

/** Conjunctions after which the verb comes last ("dass ich bei SAP arbeite"): no verb second. */
const SUBORDINATORS =
  'dass|daß|weil|wenn|ob|als|und|aber|oder|denn|sondern|falls|obwohl|damit|nachdem|bevor|seit|seitdem|während|wie|wo|was|wer|sobald|sodass|bis|da';

/**
 * A main clause whose finite verb stands before "ich" (verb second, what stood first taken off:
 * a time phrase, or a time word of {@link NOW}'s): the verb and its subject in statement order.
 */
const V2 = new RegExp(
  `^(?:(?:jetzt|nun|inzwischen|mittlerweile|derzeit|gerade|seit kurzem|aktuell|heute|gestern) )*(?!(?:${SUBORDINATORS})${E})(\\p{Ll}[\\p{L}]*) ich(?:\\s+|$)`,
  'iu',
);

/**
 * The modal particles German puts after an imperative ("merk dir doch, dass …", "merk dir bitte
 * mal, dass …"), any of them in any order.
 */
const PARTICLES = '(?: (?:bitte|doch|mal|einfach|eben|halt|ja|nochmal|noch mal))*';

/**
 * "ich", adverbs, a verb in the first person of the present ("fahre", "studiere", "spiele",
 * "bin", "hab"), never a weak verb's past ("spielte", "wohnte", "arbeitete"), and what follows.
 */
const DE_STATE =
  /^ich\s+(?:(?:jetzt|inzwischen|mittlerweile|noch|immer noch|auch|gerade|momentan|aktuell)\s+)*(?<verb>bin|hab|habe|(?!\p{L}*(?:[^aeiout\s]te|ete)(?![\p{L}]))\p{Ll}+e)\s+(?<rest>.+)$/iu;
/** Verbs of thinking, wanting, liking: not a state of the owner's life. */
const DE_THINKING =
  /^(?:denke|glaube|will|möchte|muss|weiß|hoffe|finde|mag|liebe|hasse|meine|würde|werde|wollte|sollte|könnte|hätte|wäre|gehe|komme|vermute|schätze|wette)$/iu;

/** A verb of the first person a German chat opens with, its "ich" left out. */
const DE_DROPPED =
  /^(?:hab|habe|hatte|bin|war|mach|mache|arbeite|wohne|fang|fange|geh|gehe|fahre|studiere|spiele)(?![\p{L}])/iu;

/** German. */
export const DE: LanguageRules = {
  lang: 'de',
  openers: 'bitte|und|also|übrigens|ok(?:ay)?|hey|du|ach|so|noch was',
  triggers: [
    {
      trigger: 'remember',
      phrase: `(?:merk(?:e|t)? (?:dir|euch)|merken sie sich|denk(?:e|t)? (?:daran|dran)|denken sie daran|vergiss nicht|vergesst nicht|vergessen sie nicht|behalte? im kopf)${PARTICLES}`,
      connector: `\\s*,?\\s*dass${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'note',
      phrase: `(?:notier(?:e)?(?: dir)?|notieren sie(?: sich)?|schreib(?: dir)? auf)${PARTICLES}`,
      connector: `\\s*,?\\s*dass${E}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'from_now_on',
      phrase: '(?:ab jetzt|von jetzt an|ab sofort|von nun an|in zukunft|künftig)',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'call_me',
      phrase: '(?:nenn|nenne|nennt|nennen sie) mich',
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'correction',
      phrase: '(?:eigentlich|korrektur|genauer gesagt|berichtigung)',
      connector: '\\s*[,:;—–!-]?',
      connectorOptional: true,
    },
  ],
  recallQuestion: new RegExp(`^(?:was|wann|wo|wer|wie|warum|welche[nrsm]?|ob|als)${E}`, 'iu'),
  request: new RegExp(
    `^(?:(?:bitte|kannst du|könntest du)\\s+)?(?:erinnere mich|erinner mich|sag mir|sag bescheid|gib mir bescheid|ruf mich|zeig mir|schreib mir|weck mich)${E}|^(?:vergiss nicht|denk daran|denk dran),? .+ zu \\p{L}+en$`,
    'iu',
  ),
  asks: new RegExp(
    `^(?:was|wann|wo|wer|wie|warum|wieso|weshalb|welche[nrsm]?|weißt du|erinnerst du dich|kannst du|könntest du|hast du|bist du|gibt es)${E}`,
    'iu',
  ),
  tag: /[,\s]+(?:ok|okay|ja|klar|verstanden|gut|bitte|in ordnung|oder)\s*[?!.]*$/iu,
  correction: new RegExp(
    `^(?:(?:eigentlich|korrektur|genauer gesagt|tatsächlich|berichtigung|in wirklichkeit)${E}(?:\\s*[,:;—–!-])?|(?:nein|sorry|entschuldigung|warte|moment|ich meine)\\s*[,:;—–!.-])\\s*`,
    'iu',
  ),
  toldYou: new RegExp(
    `^(?:wie ich (?:dir )?(?:schon )?(?:gesagt|erzählt) habe\\s*,?|ich hab(?:e)? dir (?:schon |doch )?(?:gesagt|erzählt)\\s*,?(?:\\s*dass${E})?)\\s*`,
    'iu',
  ),
  hypothetical: new RegExp(
    `^(?:was wäre,? wenn|was waere,? wenn|stell dir vor|stellen sie sich vor|angenommen|nehmen wir an|hypothetisch|ich wünschte|wenn ich (?:\\S+ ){0,4}?(?:wäre|hätte|könnte|würde))${E}`,
    'iu',
  ),
  report: [
    /^(?:laut|gemäß) (?<who>[^,]+?),\s*(?<rest>.+)$/iu,
    new RegExp(
      `^(?<who>(?:mein|meine|unser|unsere) (?:[\\p{L}-]+ ){0,2}?[\\p{L}-]+|der [\\p{L}-]+|die [\\p{L}-]+|er|sie|jemand|[\\p{L}][\\p{L}\\p{M}'’.-]*(?: [\\p{L}][\\p{L}\\p{M}'’.-]*)?) (?:hat (?:gesagt|erzählt|gemeint|geschrieben)|sagt|sagte|meint|meinte|glaubt|denkt|behauptet|erzählte|schrieb|findet|schwört)${E}(?:\\s*,)?(?:\\s*dass${E})?\\s+(?<rest>.+)$`,
      'iu',
    ),
    new RegExp(
      `^(?<who>(?:mein|meine|unser|unsere) (?:[\\p{L}-]+ ){0,2}?[\\p{L}-]+|[\\p{L}][\\p{L}\\p{M}'’.-]*) (?:gesagt|erzählt|gemeint|geschrieben) hat,?\\s*(?:dass${E}\\s*)?(?<rest>.+)$`,
      'iu',
    ),
  ],
  notNames: new Set(
    (
      'wenn morgen später um heute jetzt bald an zurück bitte ab nach vor in am im sobald falls ' +
      'gleich noch mal wieder einen ein eine der die das'
    ).split(' '),
  ),
  functionWords: new Set(
    (
      'der die das den dem des ein eine einen einem einer eines und oder in im am an auf zu zum ' +
      'zur mit von vom für bei mein meine meinen meinem meiner ich du er sie es wir ihr ist sind ' +
      'sehr nicht kein keine keinen keinem gern gerne jetzt dass'
    ).split(' '),
  ),
  relations:
    /^(?:schwester|bruder|mutter|vater|mama|papa|sohn|tochter|kinder|kind|frau|mann|ehefrau|ehemann|freundin|freund|partnerin|partner|oma|opa|großmutter|grossmutter|großvater|grossvater|großeltern|tante|onkel|cousine|cousin|neffe|nichte|chefin|chef|ärztin|arzt|hausärztin|hausarzt|zahnärztin|zahnarzt|therapeutin|therapeut|tierärztin|tierarzt|anwältin|anwalt|nachbarin|nachbar|kollegin|kollege|hund|katze|haustier|baby|schwiegermutter|schwiegervater|schwager|schwägerin|stiefvater|stiefmutter|lehrerin|lehrer|trainerin|trainer|vermieterin|vermieter|enkelin|enkel|mitbewohnerin|mitbewohner)$/iu,
  cut: /\s*(?:[,;(]|\s[-—–]\s|(?<![\p{L}])(?:aber|weil|wo|obwohl|nicht|sondern)(?![\p{L}])|\sund\s(?=[a-zäöüß]))/u,
  fillers:
    /^(?:jetzt|nun|inzwischen|mittlerweile|derzeit|gerade|aktuell|eigentlich|tatsächlich|wirklich)\s+|\s+(?:jetzt|nun|inzwischen|mittlerweile|derzeit|gerade|aktuell|ab jetzt)$/iu,
  additive: wordsRe(['auch', 'außerdem', 'zusätzlich', 'noch ein', 'noch eine', 'noch einen']),
  negation: new RegExp(`^(?:nicht|kein|keine|keinen|nie|niemand)${E}`, 'iu'),
  // Main-clause order after a fronted phrase: the finite verb, then the subject ("seit 2021
  // arbeite ich bei SAP" once the time phrase is read off → "ich arbeite bei SAP").
  // "Wir" includes the owner ("wir sind nach Köln gezogen", "wir wohnen jetzt in Bonn").
  expand: (s) =>
    s
      .replace(V2, 'ich $1 ')
      .replace(/^wir sind(?![\p{L}])/iu, 'ich bin')
      .replace(/^wir haben(?![\p{L}])/iu, 'ich habe')
      .replace(/^wir wohnen(?![\p{L}])/iu, 'ich wohne'),
  // A chat leaves "ich" out before its verb ("Hab bei McFit gekündigt", "Bin seit März in Leipzig").
  dropped: (s) => (DE_DROPPED.test(s) ? `ich ${s.charAt(0).toLowerCase()}${s.slice(1)}` : null),
  firstPerson: /^ich(?![\p{L}])/iu,
  began: /^ich (?:habe|hab|bin) .*(?:angefangen|begonnen|beigetreten|eingestiegen)$/iu,
  changed:
    /^ich (?:habe|hab|bin) .*(?:geheiratet|umgezogen|gezogen|adoptiert|gekauft|geworden|gewechselt|bekommen|verlobt)$/iu,
  holds: (s) => {
    const m = DE_STATE.exec(s)?.groups;
    if (!m?.verb || !m.rest || DE_THINKING.test(m.verb)) return null;
    // "ich bin … umgezogen", "ich habe … gekauft" say what happened (the participle at the end).
    if (
      /^(?:bin|habe|hab)$/iu.test(m.verb) &&
      /(?:^|\s)(?:ge\p{L}+(?:t|en)|\p{L}+iert)$/iu.test(m.rest)
    )
      return null;
    return m.rest;
  },
  names: namesSomethingAmongNouns,
  relationHead: 'last',
  slots: [
    {
      name: 'preferred name',
      re: /^(?:nenn|nenne|nennt|nennen sie) mich (.+)$|^(?:du|ihr|sie) mich (.+?) nennen (?:sollst|sollt|sollen|kannst|könnt|können)$/iu,
      slot: (m, h) => preferredName(h, m[1] ?? m[2]!),
    },
    {
      name: 'own name',
      re: /^(?:ich heiße|ich heisse|mein name ist) (.+)$|^(?:ich|mein name) (.+?) (?:heiße|heisse|ist)$/iu,
      slot: (m, h) => (m[2] && /^ich mein/iu.test(m[0]) ? null : ownName(h, m[1] ?? m[2]!)),
    },
    {
      name: 'project reassigned',
      re: new RegExp(
        `^(?:man hat mich|sie haben mich|ich wurde|ich bin|man mich|sie mich|ich) ${NOW}(?:vom|von dem|von|aus dem) (?:projekt )?\\S+(?: \\S+)? (?:zum|zu|ins|in das|auf das) ((?:projekt )?\\S+(?: \\S+)?) (?:versetzt|verschoben|gewechselt|geschoben)`,
        'iu',
      ),
      slot: (m, h) => project(h, m[1]!, PROJEKT),
    },
    {
      name: 'current project',
      re: new RegExp(
        `^ich (?:bin|arbeite) ${NOW}(?:im|am|an dem|in dem|auf dem) (projekt .+)$|^ich ${NOW}(?:im|am|an dem|in dem) (projekt .+?) (?:bin|arbeite)$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[1] ?? m[2]!, PROJEKT),
    },
    {
      name: 'favourite',
      re: /^meine? lieblings(\S+) (?:ist|sind) (.+)$|^meine? lieblings(\S+) (.+?) (?:ist|sind)$/iu,
      slot: (m, h) => favourite(h, m[1] ?? m[3]!, m[2] ?? m[4]!),
    },
    {
      name: 'someone’s name',
      re: /^(?:mein|meine) (?:neuer? |neues |jetzige[rs]? )?((?:\S+ ){0,2}?\S+?) (heißt|heisst|heißen|heissen) (.+)$/iu,
      slot: (m, h) => possessive(h, m[1]!, m[3]!, /t$/u.test(m[2]!)),
    },
    {
      name: 'someone’s name, verb last',
      re: new RegExp(`^[Mm]eine? ${NOUN} (.+?) (heißt|heisst|heißen|heissen)$`, 'u'),
      slot: (m, h) => possessive(h, m[1]!, m[2]!, /t$/u.test(m[3]!)),
    },
    {
      // The owner's job is where they work ("mein Job ist bei …").
      name: 'mein Job ist bei',
      re: /^mein\s+(?:neuer\s+)?(?:job|arbeitsplatz|arbeitgeber)\s+ist\s+(?:jetzt\s+)?(?:bei|in)\s+(.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'my X is Y',
      re: /^(?:mein|meine) (?:neuer? |neues |jetzige[rs]? )?((?:\S+ ){0,2}?\S+?) (?:ist|sind|war) (?:jetzt |nun )?(.+)$/iu,
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      name: 'my X is Y, verb last',
      re: new RegExp(`^[Mm]eine? ${NOUN} (.+?) (?:ist|sind)$`, 'u'),
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      // After "eigentlich", "jetzt" …, the verb comes first: "ist mein Zahnarzt Dr. Ruiz".
      name: 'my X is Y, verb first',
      re: /^(ist|sind|heißt|heisst) (?:jetzt |nun )?meine? (?:neuer? |neues )?(\S+) (.+)$/iu,
      slot: (m, h) => possessive(h, m[2]!, m[3]!, /^hei/iu.test(m[1]!)),
    },
    {
      name: 'like',
      re: /^ich (?:mag|liebe|esse gerne?|trinke gerne?|höre gerne?) (.+)$|^ich (.+?) (?:mag|liebe)$/iu,
      slot: (m, h) => preference(h, (m[1] ?? m[2]!).replace(/\s+nicht$/iu, '')),
    },
    {
      name: 'dislike',
      re: /^ich (?:hasse|mag keine?n?|mag nicht|esse keine?n?|trinke keine?n?) (.+)$|^ich (.+?) (?:hasse|nicht leiden kann)$/iu,
      slot: (m, h) => preference(h, m[1] ?? m[2]!),
    },
    {
      name: 'diet',
      re: new RegExp(
        `^ich bin (?:jetzt |seit kurzem |nun )?(${DIETS})(?: jetzt)?(?![\\p{L}\\p{M}])`,
        'iu',
      ),
      slot: (m, h) => diet(h, m[1]!),
    },
    {
      name: 'allergy',
      re: /^ich bin (?:stark |sehr )?allergisch (?:gegen|auf) (.+)$|^ich (?:stark |sehr )?allergisch (?:gegen|auf) (.+?) bin$|^ich habe eine (\S+?)allergie$/iu,
      slot: (m, h) => allergy(h, m[1] ?? m[2] ?? m[3]!),
    },
    {
      name: 'home',
      re: new RegExp(
        `^ich (?:wohne|lebe) ${NOW}in (.+)$|^ich ${NOW}in (.+?) (?:wohne|lebe)$`,
        'iu',
      ),
      slot: (m, h) => home(h, m[1] ?? m[2]!),
    },
    {
      name: 'moved home',
      re: new RegExp(
        `^ich bin ${NOW}(?:von .+? )?nach (.+?) (?:gezogen|umgezogen)$|^ich ${NOW}(?:von .+? )?nach (.+?) (?:gezogen|umgezogen) bin$`,
        'iu',
      ),
      slot: (m, h) => home(h, m[1] ?? m[2]!),
    },
    {
      name: 'employer',
      re: new RegExp(
        `^ich arbeite ${NOW}(?:bei|für) (.+)$|^ich ${NOW}(?:bei|für) (.+?) arbeite$`,
        'iu',
      ),
      slot: (m, h) => employer(h, m[1] ?? m[2]!),
    },
    {
      name: 'new employer',
      re: new RegExp(
        `^ich bin ${NOW}(?:zu|bei) (.+?) gewechselt$|^ich ${NOW}(?:zu|bei) (.+?) gewechselt bin$|^ich hab(?:e)? ${NOW}bei (?:der |dem |den )?(.+?) angefangen$|^ich ${NOW}bei (?:der |dem |den )?(.+?) angefangen hab(?:e)?$`,
        'iu',
      ),
      slot: (m, h) => employer(h, m[1] ?? m[2] ?? m[3] ?? m[4]!, true),
    },
    {
      name: 'partner',
      re: /^ich bin (?:jetzt |seit kurzem )?mit (.+?) (verheiratet|verlobt|zusammen)$|^ich bin (?:jetzt |seit kurzem )?(verheiratet|verlobt|zusammen) mit (.+)$|^ich hab(?:e)? (.+?) (geheiratet)$/iu,
      slot: (m, h) =>
        partner(
          h,
          /^(?:verh|geh)/iu.test(m[2] ?? m[3] ?? m[6]!) ? 'spouse' : 'partner',
          m[1] ?? m[4] ?? m[5]!,
        ),
    },
    {
      name: 'someone’s home',
      re: /^[Mm]eine? (\p{Lu}[\p{Ll}-]+)(?: (\p{Lu}[\p{L}\p{M}'’-]*))? (?:wohnt|lebt|ist nach) (?:in )?(.+)$/u,
      slot: (m, h) => (h.isRelation(m[1]!) ? aboutSomeone(h, m[2] ?? m[1]!, m[3]!, 'home') : null),
    },
  ],
};
