/**
 * The words of corrections in each language capture reads (English, Spanish, French, German,
 * Portuguese): negations that say "no longer", ending verbs with the slot they end, changes with
 * two arguments, "B instead of A", contrasts, whose subject a clause has, and the words that
 * present a new value. The grammar that reads them is `change.ts`.
 *
 * @module
 */
import type { Kind } from '@keel/memory';
import type { SlotFamily } from './change.js';
import type { CaptureLanguage } from './common.js';

/** One language's words for the three shapes. */
export interface ChangeWords {
  readonly lang: CaptureLanguage;
  /** A negation that says "no longer"; its match is removed to read the positive clause. */
  readonly negation: RegExp;
  /** Words of a negation ("not", "n't", "don't") removed with it for the positive reading. */
  readonly negationWords: RegExp;
  /** Ending verbs, with the class of slot they end when no object is named. */
  readonly endings: readonly {
    re: RegExp;
    slot?: { kind: Kind; key: string };
    family?: SlotFamily;
    /** An end announced, not yet come ("I handed in my notice"): asked about, never closed. */
    announced?: true;
  }[];
  /** Change constructions: groups `from` and `to`. */
  readonly changes: readonly RegExp[];
  /**
   * "B instead of A": group `before` (the clause up to the word, B its last words) and `from`
   * (A); B is read as the words before it, as many as A has (the two stand in parallel).
   */
  readonly instead: RegExp;
  /**
   * A contrast that names the value it corrects: "X, not Y", "not Y but X" (groups `to` and
   * `from`); `to` may open with the words that present a value ("it's Dr. Lindqvist").
   */
  readonly contrast: readonly RegExp[];
  /**
   * An ending said of its subject, the subject first ("Mochi died on Saturday", "the Japanese
   * course is over", "el curso de inglés se acabó"): group `subject`, what ended, named whole.
   */
  readonly over: RegExp;
  /** Determiners a subject may open with ("the", "my", "el", "mon", "der", "o"): not part of its name. */
  readonly determiners: RegExp;
  /** A subject that is someone else: a third-person pronoun, or a possessive before a noun. */
  readonly others: RegExp;
  /** Words that put the owner in a clause ("I", "me", "we", "and I"). */
  readonly owner: RegExp;
  /** The words that hold what follows a stop up as its new value ("it's", "c'est", "ist"). */
  readonly presenting: RegExp;
  /** Prepositions a new value follows ("now at Globex", "ahora en Santander"). */
  readonly prepositions: RegExp;
}

const W = '(?![\\p{L}\\p{M}])';
const B = '(?<![\\p{L}\\p{M}])';
const re = (src: string) => new RegExp(src, 'iu');
export const EMPLOYER = { kind: 'profile' as Kind, key: 'employer' };
const HOME = { kind: 'profile' as Kind, key: 'home' };

export const WORDS: readonly ChangeWords[] = [
  {
    lang: 'en',
    negation: re(
      `(?:${B}(?:no longer|not any ?more)|(?:${B}not|n['’]t|${B}never)${W}.*?${B}(?:any ?more|any longer))${W}`,
    ),
    negationWords: re(
      `${B}(?:no longer|(?:do|does|did|am|is|are)(?:n['’]t| not)|not|never|any ?more|any longer)${W}|n['’]t${W}`,
    ),
    endings: [
      {
        re: re(
          `${B}(?:split up|broke up|separated|divorced|dumped|parted ways|called it quits)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(
          `${B}(?:retired|resigned|got (?:fired|laid off|let go)|was (?:fired|laid off|let go)|let me go|laid me off|fired me|sacked me|made me redundant)${W}`,
        ),
        slot: EMPLOYER,
      },
      { re: re(`${B}moved out${W}`), slot: HOME },
      {
        re: re(
          `${B}(?:left|quit|quitted|stopped|ended|gave up|give up|cancel(?:l)?ed|switched away from|moved away from|dropped|finished with|sold|traded(?: in)?|got rid of)${W}`,
        ),
      },
      // Read last: "I handed in my notice and left Initrode" says it ended.
      {
        re: re(
          `${B}(?:(?:handed|turned|put) in my (?:notice|resignation)|gave (?:my )?(?:notice|two weeks))${W}`,
        ),
        slot: EMPLOYER,
        announced: true,
      },
    ],
    changes: [
      re(
        `${B}(?:switched|went|moved|changed|swapped|migrated|converted|upgraded|downgraded|transitioned|shifted|gone)\\s+(?:over\\s+)?from\\s+(?<from>.+?)\\s+(?:to|over to|onto)\\s+(?<to>.+)$`,
      ),
      re(
        `${B}(?:swapped|traded|exchanged|replaced|ditched|dropped)\\s+(?<from>.+?)\\s+(?:for|with)\\s+(?<to>.+)$`,
      ),
    ],
    instead: re(`^(?<before>.+?)\\s+(?:instead of|rather than|in place of)\\s+(?<from>.+)$`),
    contrast: [
      // "no wait, not Nancy — Nantes": the denial first, the value after a dash.
      re(`(?:^|,\\s*)not\\s+(?<from>[^,—–]+?)\\s+[—–-]\\s+(?<to>[^,]+)$`),
      re(`^(?<to>.+?),\\s+not\\s+(?<from>[^,]+)$`),
      re(`^(?:it['’]s\\s+|it is\\s+)?not\\s+(?<from>.+?),?\\s+but\\s+(?<to>.+)$`),
      // "i said tuesday but it's thursday": what the owner said before, then what holds.
      re(
        `(?:^|[,;]\\s*)i\\s+said\\s+(?<from>[^,;]+?),?\\s+but\\s+(?:it['’]s|it is|its|it was)\\s+(?<to>[^,;]+)`,
      ),
    ],
    over: re(
      `^(?<subject>[^,;:]+?)\\s+(?:died|passed away|passed on|was put down|has died|is (?:over|done|finished|dead)|are (?:over|done|finished)|(?:has )?ended|closed down|shut down)${W}`,
    ),
    determiners: re(`^(?:the|my|our|a|an)\\s+`),
    others: re(
      `^(?:(?:my|our|his|her|their)\\s+(?<noun>[\\p{L}'’-]+)|(?:he|she|they|someone|somebody)${W})`,
    ),
    owner: re(`${B}(?:i|me|we|us|myself|i['’](?:m|ve|d|ll))${W}`),
    presenting: re(`^(?:it['’]s|it is|that['’]s|i['’]m|i am)\\s+`),
    prepositions: re(`^(?:at|in|with|for|to|on)\\s+`),
  },
  {
    lang: 'es',
    negation: re(`${B}(?:ya no|no\\s.*?${B}(?:más|nunca más)|nunca más)${W}`),
    negationWords: re(`${B}(?:ya no|no|más|nunca)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:lo dejamos|rompimos|nos separamos|me separé|nos divorciamos|me divorcié|cortamos)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(`${B}(?:me jubilé|me retiré|renuncié|dimití|me despidieron)${W}`),
        slot: EMPLOYER,
      },
      {
        re: re(
          `${B}(?:dejé|deje|terminé|termine|acabé con|dejé de|me di de baja|cancelé|salí de|me fui de|vendí|vendi|me deshice de)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}(?:cambié|cambie|pasé|pase|me cambié|me pasé|me mudé)\\s+(?:de\\s+)?(?<from>.+?)\\s+(?:a|al|por)\\s+(?<to>.+)$`,
      ),
    ],
    instead: re(
      `^(?<before>.+?)\\s+(?:en lugar de|en vez de|en lugar del|en vez del)\\s+(?<from>.+)$`,
    ),
    contrast: [
      re(`(?:^|,\\s*)no\\s+(?<from>[^,—–]+?)\\s+[—–-]\\s+(?<to>[^,]+)$`),
      re(`^(?<to>.+?),\\s+(?:no|y no)\\s+(?<from>[^,]+)$`),
      re(`^no es\\s+(?<from>.+?),?\\s+(?:es|sino)\\s+(?<to>.+)$`),
      re(
        `(?:^|[,;]\\s*)(?:yo\\s+)?dije\\s+(?<from>[^,;]+?),?\\s+pero\\s+(?:es|era)\\s+(?<to>[^,;]+)`,
      ),
    ],
    over: re(
      `^(?<subject>[^,;:]+?)\\s+(?:murió|se murió|falleció|se acabó|terminó|ha terminado|cerró)${W}`,
    ),
    determiners: re(`^(?:el|la|los|las|mi|mis|nuestro|nuestra)\\s+`),
    others: re(
      `^(?:(?:mi|mis|nuestro|nuestra)\\s+(?<noun>[\\p{L}-]+)|(?:él|ella|ellos|ellas|alguien)${W})`,
    ),
    owner: re(`${B}(?:yo|me|nos|nosotros|nosotras|conmigo)${W}`),
    presenting: re(`^(?:es|son|estoy|soy)\\s+`),
    prepositions: re(`^(?:en|a|al|con|para|de)\\s+`),
  },
  {
    lang: 'fr',
    negation: re(
      `${B}(?:ne\\s+|n['’])(?:\\S+\\s+){0,2}?plus${W}|${B}plus jamais${W}|^(?:je\\s+|j['’]|on\\s+|nous\\s+)(?:\\S+\\s+)?\\S+\\s+plus${W}(?!\\s+(?:de|d['’]|du|des|que|qu['’]|tard|tôt|souvent|loin|vite|longtemps))`,
    ),
    negationWords: re(`${B}(?:ne|plus|jamais)${W}|${B}n['’]`),
    endings: [
      {
        re: re(`${B}(?:séparés|séparées|séparé|séparée|rompu|largué|quittés)${W}`),
        family: 'partner',
      },
      {
        re: re(`${B}(?:pris ma retraite|démissionné|licencié|licenciée|viré|virée)${W}`),
        slot: EMPLOYER,
      },
      { re: re(`${B}déménagé${W}`), slot: HOME },
      {
        re: re(
          `${B}(?:quitté|arrêté|abandonné|résilié|laissé tomber|fini avec|terminé|vendu|revendu)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}(?:passée?|changée?|migrée?)\\s+(?:de|du|des)\\s+(?<from>.+?)\\s+(?:à|a|au|aux|vers|pour)\\s+(?<to>.+)$`,
      ),
      re(`${B}(?:remplacé|échangé)\\s+(?<from>.+?)\\s+(?:par|contre)\\s+(?<to>.+)$`),
    ],
    instead: re(
      `^(?<before>.+?)\\s+(?:au lieu de|au lieu du|au lieu des|à la place de|à la place du|plutôt que)\\s+(?<from>.+)$`,
    ),
    contrast: [
      re(`(?:^|,\\s*)pas\\s+(?<from>[^,—–]+?)\\s+[—–-]\\s+(?<to>[^,]+)$`),
      re(`^(?<to>.+?),\\s+(?:pas|et non|non)\\s+(?<from>[^,]+)$`),
      re(`^(?:ce n['’]est pas|c['’]est pas)\\s+(?<from>.+?),?\\s+(?:c['’]est|mais)\\s+(?<to>.+)$`),
      re(
        `(?:^|[,;]\\s*)j['’]ai dit\\s+(?<from>[^,;]+?),?\\s+mais\\s+(?:c['’]est|c['’]était)\\s+(?<to>[^,;]+)`,
      ),
    ],
    over: re(
      `^(?<subject>[^,;:]+?)\\s+(?:est (?:mort|morte|décédé|décédée|fini|finie|terminé|terminée)|c['’]est (?:fini|terminé)|nous a quittés|a fermé)${W}`,
    ),
    determiners: re(`^(?:le|la|les|l['’]|mon|ma|mes|notre|nos)\\s*`),
    others: re(
      `^(?:(?:mon|ma|mes|notre|nos)\\s+(?<noun>[\\p{L}-]+)|(?:il|elle|ils|elles|quelqu['’]un)${W})`,
    ),
    owner: re(`${B}(?:je|moi|me|nous|on)${W}|${B}[jm]['’]`),
    presenting: re(`^(?:c['’]est|ce sont|je suis)\\s+`),
    prepositions: re(`^(?:à|a|au|aux|chez|en|avec|pour|dans)\\s+`),
  },
  {
    lang: 'de',
    negation: re(`${B}(?:nicht mehr|kein(?:e|en|er|em)? \\S+ mehr|nie mehr|nicht länger)${W}`),
    negationWords: re(`${B}(?:nicht|mehr|nie|länger)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:getrennt|schluss gemacht|geschieden|auseinander gegangen|auseinandergegangen)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(`${B}(?:in rente|in pension|gekündigt|entlassen|rausgeworfen)${W}`),
        slot: EMPLOYER,
      },
      { re: re(`${B}ausgezogen${W}`), slot: HOME },
      {
        re: re(
          `${B}(?:aufgehört|verlassen|beendet|aufgegeben|abbestellt|abgemeldet|gekündigt|verkauft|abgebrochen)${W}`,
        ),
      },
    ],
    changes: [
      re(
        `${B}von\\s+(?<from>.+?)\\s+(?:zu|zum|zur|auf|nach)\\s+(?<to>.+?)(?:\\s+(?:gewechselt|umgestiegen|umgezogen|gegangen))?$`,
      ),
      re(
        `${B}(?:(?:den|die|das|meinen|meine|mein)\\s+)?(?<from>\\S+(?:\\s+\\S+)?)\\s+(?:gegen|durch)\\s+(?:(?:den|die|das|einen|eine|ein)\\s+)?(?<to>.+?)\\s+(?:getauscht|eingetauscht|ersetzt|ausgetauscht)$`,
      ),
    ],
    instead: re(`^(?<before>.+?)\\s+(?:statt|anstatt|anstelle von|anstelle)\\s+(?<from>.+)$`),
    contrast: [
      re(`(?:^|,\\s*)nicht\\s+(?<from>[^,—–]+?)\\s+[—–-]\\s+(?<to>[^,]+)$`),
      re(`^(?<to>.+?),\\s+(?:nicht|und nicht)\\s+(?<from>[^,]+)$`),
      re(`^(?:es ist\\s+)?nicht\\s+(?<from>.+?),?\\s+sondern\\s+(?<to>.+)$`),
    ],
    over: re(
      `^(?<subject>[^,;:]+?)\\s+(?:ist (?:gestorben|verstorben|tot|vorbei|zu Ende|beendet)|hat zugemacht)${W}`,
    ),
    determiners: re(`^(?:der|die|das|mein|meine|unser|unsere)\\s+`),
    others: re(`^(?:(?:mein|meine|meiner|unser|unsere)\\s+(?<noun>[\\p{L}-]+)|(?:er|jemand)${W})`),
    owner: re(`${B}(?:ich|mich|mir|wir|uns)${W}`),
    presenting: re(`^(?:es ist|ist es|das ist|ist|bin|ich bin)\\s+`),
    prepositions: re(`^(?:in|bei|bei der|bei dem|beim|nach|zu|zum|zur|für|mit|im)\\s+`),
  },
  {
    lang: 'pt',
    negation: re(`${B}(?:já não|não\\s.*?${B}mais|nunca mais)${W}`),
    negationWords: re(`${B}(?:já não|não|mais|nunca)${W}`),
    endings: [
      {
        re: re(
          `${B}(?:terminei com|terminamos|separamos|nos separamos|me separei|acabamos|nos divorciamos|me divorciei)${W}`,
        ),
        family: 'partner',
      },
      {
        re: re(
          `${B}(?:me aposentei|aposentei-me|pedi demissão|me demiti|demiti-me|fui demitid[oa]|me demitiram|me mandaram embora)${W}`,
        ),
        slot: EMPLOYER,
      },
      { re: re(`${B}(?:saí|sai|deixei|larguei|parei|cancelei|desisti|vendi)${W}`) },
    ],
    changes: [
      re(
        `${B}(?:mudei|troquei|passei|migrei)\\s+(?:de|do|da)\\s+(?<from>.+?)\\s+(?:para|pra|pro|pela|pelo)\\s+(?<to>.+)$`,
      ),
      re(
        `${B}(?:troquei|substituí|substitui|trocamos)\\s+(?:o\\s+|a\\s+|os\\s+|as\\s+)?(?<from>.+?)\\s+(?:por|pelo|pela|pelos|pelas)\\s+(?<to>.+)$`,
      ),
    ],
    instead: re(
      `^(?<before>.+?)\\s+(?:em vez de|em vez do|em vez da|ao invés de|no lugar de)\\s+(?<from>.+)$`,
    ),
    contrast: [
      re(`(?:^|,\\s*)não\\s+(?<from>[^,—–]+?)\\s+[—–-]\\s+(?<to>[^,]+)$`),
      re(`^(?<to>.+?),\\s+(?:não|e não)\\s+(?<from>[^,]+)$`),
      re(`^não é\\s+(?<from>.+?),?\\s+(?:é|mas)\\s+(?<to>.+)$`),
      re(
        `(?:^|[,;]\\s*)(?:eu\\s+)?disse\\s+(?<from>[^,;]+?),?\\s+mas\\s+(?:é|era)\\s+(?<to>[^,;]+)`,
      ),
    ],
    over: re(`^(?<subject>[^,;:]+?)\\s+(?:morreu|faleceu|acabou|terminou|fechou)${W}`),
    determiners: re(`^(?:o|a|os|as|meu|minha|nosso|nossa)\\s+`),
    others: re(
      `^(?:(?:o |a )?(?:meu|minha|meus|minhas|nosso|nossa)\\s+(?<noun>[\\p{L}-]+)|(?:ele|ela|eles|elas|alguém)${W})`,
    ),
    owner: re(`${B}(?:eu|me|mim|nós|comigo|a gente)${W}`),
    presenting: re(`^(?:é|são|estou|sou)\\s+`),
    prepositions: re(`^(?:em|na|no|nas|nos|para|pra|com|de|da|do)\\s+`),
  },
];

/**
 * The owner calling someone their ex, with the name ("me and my ex, Tomasz, …", "mon ex, Léonie,
 * est passée …", "mi ex, Diego"): group `name`. A couple ended; the name says whose.
 */
export const EX_NAMED = new RegExp(
  `${B}(?:my|mon|ma|mi|mein|meine|meinem|meiner|meu|minha)\\s+(?:ex|ex-(?:wife|husband|girlfriend|boyfriend|partner|femme|mari|copine|copain|novia|novio|mujer|marido|frau|mann|freundin|freund|namorada|namorado|esposa|esposo))${W},?\\s+(?<name>\\p{Lu}[\\p{L}\\p{M}'’-]+)`,
  'u',
);

/**
 * Relation keys of a couple, in the languages capture knows (the keys "my boyfriend is Kofi",
 * "mi novia se llama Lucía", "meine Freundin heißt Lena" land under): a couple's ending closes
 * them ({@link SlotFamily} `partner`).
 */
export const PARTNER_KEYS: ReadonlySet<string> = new Set(
  (
    'partner boyfriend girlfriend wife husband fiance fiancee fiancé fiancée spouse ' +
    'novio novia pareja esposo esposa marido mujer prometido prometida ' +
    'copain copine compagnon compagne mari femme fiancé fiancée conjoint conjointe ' +
    'freund freundin partnerin ehemann ehefrau mann frau verlobte verlobter lebensgefährte lebensgefährtin ' +
    'namorado namorada noivo noiva companheiro companheira'
  ).split(' '),
);

/** Nouns for the owner's work: an ending whose object is one ("I quit my job") ends the employer. */
export const JOB_NOUN =
  /(?<![\p{L}\p{M}])(?:job|work|position|employer|company|trabajo|empleo|curro|empresa|boulot|travail|poste|boîte|taf|arbeit|stelle|job|firma|arbeitgeber|emprego|trabalho|empresa)(?![\p{L}\p{M}])/iu;
