/**
 * The pattern gate in French: the owner's home, work, family and routines, and their changes
 * ("J'habite à Lyon depuis mars", "J'ai quitté Acme", "Ma mère s'appelle Hélène", "Je cours tous
 * les matins", "Je ne bois plus de café"). A clause in the conditional ("je prendrais") hedges.
 *
 * @module
 */
import { capitalisedIn, type LanguagePatterns } from './language.js';

/** People and animals in the owner's life. */
const REL =
  '(?:mère|maman|père|papa|parents|frères?|s(?:œ|oe)urs?|fils|filles?|enfants|mari|femme|épou(?:x|se)|' +
  'copain|copine|compagnon|compagne|conjointe?|partenaire|petit ami|petite amie|grand-mère|grand-père|' +
  'grands-parents|oncle|tante|cousine?|neveu|nièce|amie?|meilleure? amie?|patronne?|cheffe?|collègue|' +
  'voisine?|coloc|colocataire|chien(?:ne)?|chat(?:te)?|médecin|dentiste|beau-père|belle-mère|' +
  'beau-frère|belle-s(?:œ|oe)ur)';
/** Occupations, both genders, for "je suis …" and "ma sœur est …". */
const JOBS =
  '(?:infirmi(?:er|ère)|médecin|professeure?|prof|enseignante?|ingénieure?|avocate?|développeu(?:r|se)|' +
  'designer|architecte|étudiante?|cuisini(?:er|ère)|serveu(?:r|se)|comptable|journaliste|dentiste|' +
  'pharmacien(?:ne)?|vétérinaire|polici(?:er|ère)|pompier|fonctionnaire|retraitée?|indépendante?|' +
  'freelance|chercheu(?:r|se)|tradu(?:cteur|ctrice)|artiste|graphiste|psychologue|kiné|' +
  'kinésithérapeute|informaticien(?:ne)?|électricien(?:ne)?|plombier|boulang(?:er|ère)|coiffeu(?:r|se)|' +
  'vendeu(?:r|se)|caissi(?:er|ère)|chauffeur|agricult(?:eur|rice)|notaire|consultante?|analyste)';
/** Where someone works: a team, project, department. */
const UNIT = '(?:projet|équipe|service|département|pôle|boîte|entreprise|agence)';
/** How often: "tous les matins", "chaque lundi", "deux fois par semaine". */
const OFTEN =
  '(?:tous les (?:jours|matins|soirs|midis|lundis|mardis|mercredis|jeudis|vendredis|samedis|dimanches|' +
  'week-ends|weekends|ans|mois|deux jours)|toutes les (?:semaines|nuits|deux semaines)|chaque (?:jour|' +
  'matin|soir|semaine|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|week-end|mois|année)|' +
  '(?:une|deux|trois|quatre|\\d+) fois par (?:jour|semaine|mois|an)|quotidiennement)';
const FREQUENCY = new RegExp(`(?:^|\\s)${OFTEN}(?![\\p{L}])`, 'u');
/** One word that may be a name (checked for a capital where the owner wrote it). */
const NAME = "([\\p{L}][\\p{L}\\p{N}&.'-]*)";
const named = (m: RegExpExecArray, _s: string, clause: string) =>
  m.slice(1).every((w) => w === undefined || capitalisedIn(clause, w));

/** French. */
export const FRENCH: LanguagePatterns = {
  code: 'fr',
  leadIn:
    /^(?:(?:alors|bon|bah|ben|eh bien|euh|du coup|au fait|d'ailleurs|aussi|et|mais|donc|enfin|voilà|ok|d'accord|oui|ouais|non|maintenant|désormais|actuellement|en fait|sinon|salut|coucou|haha|mdr|depuis (?:\d+ |un |une |deux |trois |quelques )?[\p{L}]+|il y a [\p{L}\d]+ [\p{L}]+|(?:l'an|l'année|le mois|la semaine) (?:dernier|dernière|passé|passée)|en (?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre|\d{4}))(?![\p{L}])[\s,.!]*)+/u,
  notReal:
    /^(?:si(?![,\p{L}])|s'ils?(?![\p{L}])|imagine|imaginons|imaginez|supposons|disons que|et si|dans (?:mon|un|le) rêve|dans (?:l'histoire|le roman|le film))/u,
  asks: /^(?:peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu peux|tu pourrais|vous pouvez|sais-tu|tu sais|te souviens-tu|tu te souviens|est-ce qu|[\p{L}]+-(?:moi|nous|tu|vous|il|elle|on)(?![\p{L}])|écris|cherche|trouve|rappelle-moi)/u,
  wh: /^(?:où|quand|comment|pourquoi|qui|que|qu'|quel|quelle|quels|quelles|combien|est-ce)(?![\p{L}])/u,
  reported:
    /(?:^|\s)(?:dit|disait|a dit|raconte|racontait|selon|d'après|prétend|affirme|(?<!je )pense|(?<!je )croit)(?=\s|$)/u,
  hedge:
    /(?:^|\s)(?:peut-être|sans doute|je me demande|je ne sais pas|j'hésite|[\p{L}]+(?:rais|rait|rions|riez|raient))(?=\s|$)/u,
  clauses: [
    [
      'relationship',
      'named relation (fr)',
      new RegExp(
        `^(?:mon|ma|mes|notre|nos) ${REL}(?: [\\p{L}-]+)? (?:s'appellen?t?|se nomme|vit|vivent|habite|habitent|` +
          `travaille|travaillent|étudie|a \\d+ ans|s'est (?:mariée?|installée?)|est (?:décédée?|morte?|enceinte|` +
          `à la retraite|mariée?|divorcée?|${JOBS}))(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'home (fr)',
      /^(?:j'habite|je vis|nous habitons|nous vivons|on habite|on vit|je réside) (?:à|a|en|au|aux|dans|près|chez|depuis|maintenant|avec|ici|seule?|toujours|désormais)(?![\p{L}])|^(?:j'ai|nous avons|on a|je viens d'|nous venons d'|on vient d') ?(?:déménagé|emménagé)|^(?:je me suis|nous nous sommes|on s'est) installée?s? (?:à|en|au|dans)(?![\p{L}])|^je suis (?:originaire|née?) (?:de|d'|à|en)/u,
    ],
    ['identity', 'from (fr)', new RegExp(`^je viens (?:de |d')${NAME}`, 'u'), named],
    [
      'identity',
      'work (fr)',
      new RegExp(
        `^(?:je travaille|nous travaillons|on travaille|je bosse) (?:sur (?:le |la |l')${UNIT}|chez|à|a|pour|comme|dans|en|au|avec|depuis|` +
          'maintenant|actuellement|désormais|toujours|de chez moi|à la maison|à distance|à mi-temps|à temps partiel)(?![\\p{L}])|' +
          `^je suis (?:(?:maintenant|actuellement|désormais|toujours)\\s+)?(?:sur|dans) (?:le |la |l'|une |un )${UNIT}(?![\\p{L}])|` +
          `^je suis (?:(?:maintenant|désormais)\\s+)?${JOBS}(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'work change (fr)',
      new RegExp(
        `^j'ai (?:rejoint|intégré|quitté) (?:l'${UNIT}|(?:le|la) ${UNIT}|mon (?:boulot|travail|poste|emploi|job)|${NAME})|` +
          "^j'ai commencé (?:chez|à travailler|un nouveau (?:travail|poste|boulot|job))|^j'ai démissionné|" +
          "^(?:on m'a|ils m'ont) (?:mise?|mutée?|transférée?|affectée?|déplacée?|nommée?|promue?)(?![\\p{L}])|" +
          "^j'ai été (?:mutée?|transférée?|affectée?|promue?|nommée?|embauchée?|licenciée?)(?![\\p{L}])|" +
          `^j'ai changé d'(?:équipe|emploi|poste|boulot|entreprise|service)|^j'ai changé de (?:projet|boîte|travail|service)`,
        'u',
      ),
      named,
    ],
    [
      'correction',
      'no longer (fr)',
      /^j'ai arrêté (?:de |d'|le |la |les |l')|^je (?:ne |n')(?!(?:sais|peux|comprends|trouve|vois|me|sens)(?![\p{L}]))[\p{L}]+(?: plus(?![\p{L}])|$)/u,
      // "plus" also starts an English clause ("… plus …"): "je ne bois | plus de café".
      (m, statement) =>
        !m[0].startsWith('je') || m[0].endsWith('plus') || statement.includes(`${m[0]} plus`),
    ],
    [
      'preference',
      'routine (fr)',
      new RegExp(
        `^(?:${OFTEN},? )?(?:je |j'|nous |on )(?!(?:étais|avais|allais|faisais)(?![\\p{L}]))[\\p{L}]+(?![\\p{L}])`,
        'u',
      ),
      (_m, _s, clause) => FREQUENCY.test(clause.toLowerCase()),
    ],
  ],
};
