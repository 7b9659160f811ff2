/**
 * French: "rappelle-toi que …", "souviens-toi que …", "note que …", "appelle-moi …", and the
 * shapes of statement that land in a known slot ("ma sœur s'appelle Léa" → relationship/sœur).
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
import { type LanguageRules, namesSomething, wordsRe } from './common.js';

/** Not a letter: the end of a word that may end in an accented letter. */
const E = '(?![\\p{L}\\p{M}])';
/** An apostrophe, straight or typographic. */
const A = "['’]";
const PROJET = /projet/iu;
const QUE = `qu(?:e${E}|${A})`;

/** "je" or "j'", adverbs, the verb and what follows it. */
const FR_STATE =
  /^(?:je\s+|j['’])(?:(?:toujours|encore|aussi|maintenant|actuellement)\s+)*(?<verb>[\p{L}]+)\s+(?:(?:toujours|encore|aussi|maintenant|actuellement)\s+)*(?<rest>.+)$/iu;
/** Verbs of thinking, wanting, liking, going and negation: not a state of the owner's life. */
const FR_THINKING =
  /^(?:pense|crois|veux|voudrais|dois|sais|espère|espere|trouve|aime|adore|déteste|deteste|préfère|prefere|vais|viens|ne|n|dis|me|m|t|te|avais|étais|etais|fus|suppose|imagine)$/iu;

/** French. */
export const FR: LanguageRules = {
  lang: 'fr',
  openers: `s${A}il te plaît|s${A}il vous plaît|stp|svp|et|aussi|bon|alors|au fait|ok|dis|eh|tiens`,
  triggers: [
    {
      trigger: 'remember',
      phrase: `(?:rappelle-toi|rappelez-vous|souviens-toi|souvenez-vous|retiens|retenez|n${A}oublie pas|n${A}oubliez pas|garde en tête|gardez en tête|garde à l${A}esprit)`,
      connector: `\\s*,?\\s*(?:bien\\s+)?${QUE}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'note',
      phrase: '(?:note|notez|prends note|prenez note)',
      connector: `\\s*,?\\s*(?:bien\\s+)?${QUE}|\\s*[:—–-]`,
      connectorOptional: false,
    },
    {
      trigger: 'from_now_on',
      phrase: `(?:à partir de maintenant|a partir de maintenant|désormais|dorénavant|dès maintenant|à l${A}avenir)`,
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'call_me',
      phrase: `(?:(?:tu peux|vous pouvez) m${A}appeler|appelle-moi|appelez-moi)`,
      connector: '\\s*[,:]?',
      connectorOptional: true,
    },
    {
      trigger: 'correction',
      phrase: '(?:en fait|en réalité|correction|rectification)',
      connector: '\\s*[,:;—–!-]?',
      connectorOptional: true,
    },
  ],
  recallQuestion: new RegExp(
    `^(?:ce que|ce qu${A}|quand|où|qui|comment|quel|quelle|quels|quelles|si|pourquoi|la fois)${E}`,
    'iu',
  ),
  request: new RegExp(
    `^(?:(?:s${A}il te plaît|peux-tu|pourrais-tu)\\s+)?(?:rappelle-moi de|rappelle-moi d${A}|préviens-moi|previens-moi|appelle-moi quand|dis-moi|montre-moi|écris-moi|réveille-moi)|^(?:n${A}oublie pas|souviens-toi|rappelle-toi) (?:de |d${A})`,
    'iu',
  ),
  asks: new RegExp(
    `^(?:est-ce que|est-ce qu${A}|qu${A}est-ce|quoi|quand|où|qui|comment|pourquoi|quel|quelle|quels|quelles|combien|tu te souviens|te souviens-tu|vous vous souvenez|tu sais|peux-tu|pourrais-tu)${E}`,
    'iu',
  ),
  tag: new RegExp(
    `[,\\s]+(?:d${A}accord|ok|okay|compris|hein|oui|s${A}il te plaît|stp|tu veux bien)\\s*[?!.]*$`,
    'iu',
  ),
  correction: new RegExp(
    `^(?:(?:en fait|en réalité|correction|rectification|pour être précis|il s${A}avère que)${E}(?:\\s*[,:;—–!-])?|(?:non|pardon|attends|enfin|je veux dire)\\s*[,:;—–!.-])\\s*`,
    'iu',
  ),
  toldYou: new RegExp(
    `^(?:comme je te l${A}ai dit\\s*,?|je t${A}ai (?:dit|raconté|parlé)(?: avant| déjà)?\\s*,?(?:\\s*${QUE})?)\\s*`,
    'iu',
  ),
  hypothetical: new RegExp(
    `^(?:et si|imagine|imaginons|imaginez|supposons|suppose|admettons|disons que|hypothétiquement|si seulement|si j${A}(?:étais|avais|pouvais|habitais|gagnais)|si je (?:pouvais|vivais|gagnais)|que se passerait-il si)${E}`,
    'iu',
  ),
  report: [
    new RegExp(`^(?:selon|d${A}après) (?<who>[^,]+?),\\s*(?<rest>.+)$`, 'iu'),
    new RegExp(
      `^(?<who>(?:mon|ma|mes|notre|nos) (?:[\\p{L}-]+ ){0,2}?[\\p{L}-]+|le [\\p{L}-]+|la [\\p{L}-]+|il|elle|ils|elles|quelqu${A}un|[\\p{L}][\\p{L}\\p{M}'’.-]*(?: [\\p{L}][\\p{L}\\p{M}'’.-]*)?) (?:m${A})?(?:a dit|dit|disait|m${A}a dit|pense|croit|affirme|prétend|a mentionné|a raconté|m${A}a raconté|a écrit|jure|a promis|trouve)${E}(?:\\s*[,:])?(?:\\s+${QUE})?\\s*(?<rest>.+)$`,
      'iu',
    ),
  ],
  notNames: new Set(
    (
      "quand demain plus tard après avant à au si dans ce cet cette aujourd'hui maintenant bientôt " +
      'dès lorsque le la les un une par de du encore tout vers pour dès que'
    ).split(' '),
  ),
  functionWords: new Set(
    (
      'le la les l un une des de du d au aux à a en et ou que qu mon ma mes ton ta tes son sa ses ' +
      'notre nos me m te t se s ce cet cette est sont très plus ne n pas y je j'
    ).split(' '),
  ),
  relations:
    /^(?:sœur|soeur|frère|frere|mère|mere|père|pere|maman|papa|fils|fille|femme|mari|épouse|époux|copine|copain|compagne|compagnon|conjointe?|partenaire|grand-mère|grand-père|grands-parents|tante|oncle|cousine?|neveu|nièce|amie?|meilleure?|patronne?|cheffe?|médecin|docteur|dentiste|psy|psychologue|thérapeute|vétérinaire|avocate?|comptable|voisine?|collègue|chienne?|chatte?|enfants?|bébé|beau-père|belle-mère|beau-frère|belle-sœur|prof|professeure?|coach|propriétaire)$/iu,
  cut: /\s*(?:[,;(]|\s[-—–]\s|(?<![\p{L}])(?:mais|parce|car|où|pas)(?![\p{L}])|\set\s(?=[a-zàâçéèêëîïôûùüÿœ]))/u,
  fillers: new RegExp(
    `^(?:maintenant|actuellement|désormais|toujours|déjà|en fait|en réalité|vraiment)\\s+|\\s+(?:maintenant|actuellement|désormais|en ce moment|à présent|pour l${A}instant|aujourd${A}hui)$`,
    'iu',
  ),
  additive: wordsRe(['aussi', 'également', 'en plus', 'un autre', 'une autre']),
  negation: new RegExp(`^(?:ne|n${A}|pas|plus|jamais|personne|aucune?)${E}`, 'iu'),
  // "On" and "nous" include the owner ("on a déménagé à Rennes", "nous habitons à Nantes").
  expand: (s) =>
    s
      .replace(/^(?:on a|nous avons) déménagé(?![\p{L}])/iu, "j'ai déménagé")
      .replace(/^(?:on s['’]est|nous nous sommes) installés?(?![\p{L}])/iu, 'je me suis installé')
      .replace(/^(?:on habite|nous habitons)(?![\p{L}])/iu, "j'habite")
      // "Notre box internet, c'est Free": what the owner shares is theirs.
      .replace(/^notre(?=\s)/iu, 'mon')
      .replace(/^nos(?=\s)/iu, 'mes'),
  firstPerson: /^(?:je|j['’])/iu,
  began:
    /^(?:j['’]ai|je me suis) (?:\S+ )?(?:commencé|débuté|rejoint|mis|mise|inscrit|inscrite|lancé|lancée)(?![\p{L}])/iu,
  changed:
    /^(?:j['’]ai (?:déménagé|adopté|acheté|emménagé|eu (?:un|une|mon|ma))|je me suis (?:marié|mariée|pacsé|pacsée|installé|installée|reconverti|reconvertie)|je suis (?:devenu|devenue|passé|passée|parti|partie))(?![\p{L}])/iu,
  holds: (s) => {
    const m = FR_STATE.exec(s)?.groups;
    if (!m?.verb || !m.rest || FR_THINKING.test(m.verb)) return null;
    const next = m.rest.split(/\s+/u)[0] ?? '';
    // "j'ai un chien" holds; "j'ai mangé", "je suis parti" say what happened.
    if (
      /^ai$/iu.test(m.verb) &&
      !/^(?:un|une|des|deux|trois|quatre|mon|ma|mes|notre|nos)$/iu.test(next)
    )
      return null;
    if (
      /^suis$/iu.test(m.verb) &&
      /^\p{L}+(?:é|ée|és|ées|i|ie|is|ies|u|ue|us)$/iu.test(next) &&
      !/^(?:fan|abonné|abonnée|inscrit|inscrite)$/iu.test(next)
    )
      return null;
    return m.rest;
  },
  names: namesSomething,
  relationHead: 'any',
  slots: [
    {
      name: 'preferred name',
      re: new RegExp(
        `^(?:(?:tu peux|vous pouvez) m${A}appeler|appelle-moi|appelez-moi|je préfère qu${A}on m${A}appelle) (.+)$`,
        'iu',
      ),
      slot: (m, h) => preferredName(h, m[1]!),
    },
    {
      name: 'own name',
      re: new RegExp(`^(?:je m${A}appelle|mon (?:pré)?nom est|mon nom c${A}est) (.+)$`, 'iu'),
      slot: (m, h) => ownName(h, m[1]!),
    },
    {
      name: 'project reassigned',
      re: new RegExp(
        `^(?:on m${A}a (?:mise?|déplacée?|transférée?|affectée?|passée?)|j${A}ai été (?:déplacée?|transférée?|affectée?|réaffectée?)|je suis passée?) (?:(?:du|de) (?:projet )?.+? )?(?:sur|à|au|vers) (?:le )?((?:projet )?.+)$`,
        'iu',
      ),
      slot: (m, h) => project(h, m[1]!, PROJET),
    },
    {
      name: 'current project',
      re: /^(?:je suis|je travaille|je bosse) (?:(?:maintenant|actuellement|désormais) )?sur (?:le )?(.+)$/iu,
      slot: (m, h) => project(h, m[1]!, PROJET),
    },
    {
      name: 'favourite',
      re: new RegExp(
        `^(?:mon|ma|mes) (.+?) (?:préférée?s?|favorie?s?|favoris?) (?:est|sont|c${A}est) (.+)$`,
        'iu',
      ),
      slot: (m, h) => favourite(h, m[1]!, m[2]!),
    },
    {
      name: 'someone’s name',
      re: new RegExp(
        `^(?:mon|ma|mes) (?:nouveau |nouvelle |nouvel |actuel |actuelle )?((?:\\S+ ){0,3}?\\S+?) (s${A}appelle|s${A}appellent) (.+)$`,
        'iu',
      ),
      slot: (m, h) => possessive(h, m[1]!, m[3]!, /appelle$/iu.test(m[2]!)),
    },
    {
      // The owner's job is where they work ("mon travail est chez …").
      name: 'mon travail est chez',
      re: /^mon\s+(?:nouveau\s+)?(?:travail|boulot|job|taf|emploi)\s+(?:est|c['’]est)\s+(?:maintenant\s+)?(?:chez|à|avec)\s+(.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'my X is Y',
      re: new RegExp(
        `^(?:mon|ma|mes) (?:nouveau |nouvelle |nouvel |actuel |actuelle )?((?:\\S+ ){0,3}?\\S+?) (?:est|sont|était|c${A}est) (?:maintenant |désormais )?(.+)$`,
        'iu',
      ),
      slot: (m, h) => possessive(h, m[1]!, m[2]!),
    },
    {
      name: 'like',
      re: new RegExp(
        `^(?:j${A}(?:aime|adore)(?: beaucoup| bien| vraiment)?|je préfère) (.+)$`,
        'iu',
      ),
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'dislike',
      re: new RegExp(
        `^je (?:n${A}aime pas|n${A}aime plus|déteste|ne supporte pas|ne mange pas|ne mange plus|ne bois pas|ne bois plus)(?: du tout)? (.+)$`,
        'iu',
      ),
      slot: (m, h) => preference(h, m[1]!),
    },
    {
      name: 'diet',
      re: new RegExp(
        `^(?:je suis|j['’]suis) (?:maintenant |désormais |devenue? )?(${DIETS})(?: maintenant)?(?![\\p{L}\\p{M}])`,
        'iu',
      ),
      slot: (m, h) => diet(h, m[1]!),
    },
    {
      name: 'allergy',
      re: new RegExp(`^je suis (?:très )?allergique (?:à|au|aux) (?:la |l${A})?(.+)$`, 'iu'),
      slot: (m, h) => allergy(h, m[1]!),
    },
    {
      name: 'home',
      re: new RegExp(
        `^(?:j${A}habite|je vis|je réside|je demeure) (?:(?:maintenant|désormais|actuellement) )?(?:à|a|en|au|aux|dans) (.+)$`,
        'iu',
      ),
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'moved home',
      re: new RegExp(
        `^(?:j${A}ai déménagé|je me suis installée?|j${A}ai emménagé)(?: de .+?)? (?:à|a|en|au|aux|dans) (.+)$`,
        'iu',
      ),
      slot: (m, h) => home(h, m[1]!),
    },
    {
      name: 'employer',
      re: /^(?:je travaille|je bosse) (?:(?:maintenant|désormais|actuellement) )?(?:chez|pour) (.+)$/iu,
      slot: (m, h) => employer(h, m[1]!),
    },
    {
      name: 'new employer',
      re: new RegExp(
        `^(?:j${A}ai rejoint|j${A}ai intégré|je suis entrée? chez|j${A}ai commencé chez) (.+)$`,
        'iu',
      ),
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'left one employer for another',
      re: new RegExp(
        `^(?:j${A}ai quitté|j${A}ai démissionné de) .+? (?:et j${A}ai rejoint|pour rejoindre|et je travaille (?:maintenant )?chez|pour) (.+)$`,
        'iu',
      ),
      slot: (m, h) => employer(h, m[1]!, true),
    },
    {
      name: 'partner',
      re: /^je suis (?:maintenant )?(mariée?|pacsée?|fiancée?|en couple) (?:avec|à) (.+)$|^je sors avec (.+)$|^je me suis (mariée?|pacsée?|fiancée?) (?:avec|à) (.+)$/iu,
      slot: (m, h) =>
        partner(
          h,
          /^mari/iu.test(m[1] ?? m[4] ?? '') ? 'spouse' : 'partner',
          m[2] ?? m[3] ?? m[5]!,
        ),
    },
    {
      name: 'someone’s home',
      re: /^(?:[Mm]on|[Mm]a|[Mm]es) ([\p{Ll}-]+)(?: (\p{Lu}[\p{L}\p{M}'’-]*))? (?:vit|habite|a déménagé) (?:à|a|en|au|aux|dans) (.+)$/u,
      slot: (m, h) => (h.isRelation(m[1]!) ? aboutSomeone(h, m[2] ?? m[1]!, m[3]!, 'home') : null),
    },
  ],
};
