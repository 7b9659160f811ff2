/**
 * The pattern gate in German: the owner's home, work, family and routines, and their changes
 * ("Ich wohne seit März in Hamburg", "Ich arbeite jetzt bei Siemens", "Meine Schwester heißt
 * Lena", "Jeden Dienstag gehe ich klettern", "Ich habe aufgehört zu rauchen"). A statement may
 * put its verb before "ich" after an opening phrase ("Seit Januar arbeite ich …"); a question is
 * known by its question mark or question word.
 *
 * @module
 */
import { capitalisedIn, type LanguagePatterns } from './language.js';

/** People and animals in the owner's life. */
const REL =
  '(?:mutter|mama|vater|papa|eltern|bruder|brüder|schwester|schwestern|geschwister|sohn|söhne|tochter|' +
  'töchter|kinder|kind|mann|ehemann|frau|ehefrau|partner|partnerin|freund|freundin|verlobter|verlobte|' +
  'oma|opa|großmutter|großvater|großeltern|onkel|tante|cousin|cousine|neffe|nichte|chef|chefin|kollege|' +
  'kollegin|nachbar|nachbarin|mitbewohner|mitbewohnerin|hund|katze|arzt|ärztin|zahnarzt|zahnärztin|' +
  'schwiegermutter|schwiegervater|enkel|enkelin)';
/** Words that may stand before a relation: "meine ältere Schwester", "mein bester Freund". */
const REL_MODS =
  '(?:(?:ältere|älterer|jüngere|jüngerer|kleine|kleiner|große|großer|beste|bester|neue|neuer)\\s+)?';
/** Occupations, both genders, for "ich bin …". */
const JOBS =
  '(?:lehrer(?:in)?|ingenieur(?:in)?|arzt|ärztin|krankenschwester|(?:kranken)?pfleger(?:in)?|' +
  '(?:software)?entwickler(?:in)?|programmierer(?:in)?|designer(?:in)?|architekt(?:in)?|student(?:in)?|' +
  '(?:rechts)?anwalt|(?:rechts)?anwältin|koch|köchin|kellner(?:in)?|buchhalter(?:in)?|journalist(?:in)?|' +
  'zahnarzt|zahnärztin|apotheker(?:in)?|tierarzt|tierärztin|polizist(?:in)?|beamter|beamtin|rentner(?:in)?|' +
  'selbstständig|selbständig|freiberufler(?:in)?|freiberuflich|forscher(?:in)?|übersetzer(?:in)?|' +
  'elektriker(?:in)?|verkäufer(?:in)?|erzieher(?:in)?|physiotherapeut(?:in)?|berater(?:in)?|' +
  '(?:projekt)?manager(?:in)?)';
/** Where someone works: a team, project, department. */
const UNIT =
  '(?:team|projekt|abteilung|bereich|büro|homeoffice|firma|krankenhaus|klinik|schule|bank)';
/** How often: "jeden Dienstag", "montags", "zweimal die Woche", "täglich". */
const OFTEN =
  '(?:jeden (?:tag|morgen|abend|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|monat)|' +
  'jede (?:woche|nacht)|jedes (?:wochenende|jahr)|montags|dienstags|mittwochs|donnerstags|freitags|' +
  'samstags|sonntags|morgens|abends|täglich|wöchentlich|(?:einmal|zweimal|dreimal|\\d+ ?mal) ' +
  '(?:die|pro|in der|im) (?:woche|tag|monat))';
const FREQUENCY = new RegExp(`(?:^|\\s)${OFTEN}(?![\\p{L}])`, 'u');
/** Up to four words before an inverted verb ("seit januar arbeite ich"). */
const OPENING = '(?:[\\p{L}\\p{N}.-]+ ){1,4}?';
/** "ich <verb>" or, after an opening phrase, "<verb> ich". */
const I = (verbs: string) => `(?:(?:ich|wir) (?:${verbs})|${OPENING}(?:${verbs}) (?:ich|wir))`;
/** A few words between the verb and what it is about ("jetzt", "seit März", "schon"). */
const WHILE =
  '(?:(?:jetzt|seit [\\p{L}\\p{N}]+|schon|inzwischen|mittlerweile|nun|wieder|immer noch|noch|hauptberuflich|zusammen|endlich|gestern|letzte woche|letzten monat|letztes jahr)\\s+)*';

/** German. */
export const GERMAN: LanguagePatterns = {
  code: 'de',
  leadIn:
    /^(?:(?:also|übrigens|ach|ach ja|ja|nein|naja|na ja|ok|okay|gut|und|aber|hallo|hi|haha|jedenfalls|ehrlich gesagt)(?![\p{L}])[\s,.!]*)+/u,
  notReal:
    /^(?:wenn|falls|angenommen|stell dir vor|stellen sie sich vor|mal angenommen|was wäre|im traum|in (?:der|meiner) geschichte)(?![\p{L}])/u,
  asks: /^(?:kannst du|könntest du|können sie|könnten sie|würdest du|weißt du|erinnerst du|sag mir|schreib|schreibe|such|suche|finde|erinnere mich|hast du|bist du|gibt es)(?![\p{L}])/u,
  wh: /^(?:wo|wann|wie|warum|wieso|weshalb|wer|wen|wem|wessen|was|welche[rsnm]?|woher|wohin|wozu|ob)(?![\p{L}])/u,
  reported:
    /(?:^|\s)(?:sagt|sagte|gesagt|meint|meinte|erzählt|erzählte|behauptet|behauptete|glaubt|denkt|laut)(?=\s|$)/u,
  hedge:
    /(?:^|\s)(?:würde|würdest|würden|wäre|wären|hätte|hätten|könnte|könnten|möchte|möchten|sollte|vielleicht|wahrscheinlich|eventuell|ob|wenn|falls|überlege)(?=\s|$)/u,
  clauses: [
    [
      'relationship',
      'named relation (de)',
      new RegExp(
        `^(?:mein|meine|meinen|meinem|unser|unsere) ${REL_MODS}${REL}(?: [\\p{L}-]+)? (?:heißt|heisst|heißen|heissen|` +
          `wohnt|wohnen|lebt|leben|arbeitet|arbeiten|studiert|ist (?:\\d+|schwanger|verheiratet|geschieden|` +
          `verstorben|gestorben|in rente|${JOBS})|wird \\d+|hat geheiratet)(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'correction',
      'no longer (de)',
      new RegExp(
        `^${I('habe|hab|haben')} (?:[\\p{L}\\p{N}.-]+ ){0,3}?aufgehört(?![\\p{L}])|` +
          '^(?:ich|wir) (?!(?:weiß|kann|verstehe|finde|sehe|erinnere|will|mag|habe|bin)(?![\\p{L}]))[\\p{L}]+ ' +
          '(?:[\\p{L}\\p{N}.-]+ ){0,3}?(?:nicht mehr|kein[\\p{L}]* (?:[\\p{L}-]+ )?mehr)(?![\\p{L}])',
        'u',
      ),
    ],
    [
      'identity',
      'home (de)',
      new RegExp(
        `^${I('wohne|lebe|wohnen|leben')} ${WHILE}(?:in|im|bei|am|an der|auf|mit|seit|nahe|außerhalb|allein|alleine)(?![\\p{L}])|` +
          `^${I('bin|sind')} (?:[\\p{L}\\p{N}.-]+ ){0,4}?(?:umgezogen|hergezogen|weggezogen|gezogen|übersiedelt)(?![\\p{L}])|` +
          '^(?:ich|wir) (?:ziehe|ziehen) (?:[\\p{L}\\p{N}.-]+ ){0,3}?(?:nach|um)(?![\\p{L}])',
        'u',
      ),
    ],
    [
      'identity',
      'from (de)',
      /^ich komme (?:ursprünglich )?aus ([\p{L}-]+)/u,
      (m, _s, clause) => capitalisedIn(clause, m[1]),
    ],
    [
      'identity',
      'work (de)',
      new RegExp(
        `^${I('arbeite|arbeiten')} ${WHILE}(?:bei|als|für|seit|von zu hause|im homeoffice|remote|teilzeit|vollzeit|` +
          `freiberuflich|selbstständig|(?:im|in dem|in der|am|an dem|in einer|in einem) (?:[\\p{L}]+-)?${UNIT})(?![\\p{L}])|` +
          `^${I('bin')} ${WHILE}(?:im|in dem|in der|beim) (?:[\\p{L}]+-)?(?:team|projekt|abteilung)(?![\\p{L}])|` +
          `^${I('bin')} ${WHILE}(?:von beruf )?${JOBS}(?![\\p{L}])`,
        'u',
      ),
    ],
    [
      'identity',
      'work change (de)',
      new RegExp(
        `^${I('habe|hab|haben')} ${WHILE}(?:(?:bei|als) [\\p{L}\\p{N}.-]+(?: [\\p{L}\\p{N}.-]+)? |` +
          '(?:einen neuen job|eine neue stelle|eine neue arbeit|meinen job|meine stelle|meine arbeit) )?' +
          '(?:gekündigt|angefangen)(?![\\p{L}])|' +
          `^${I('habe|hab|haben')} ${WHILE}(?:das team|die abteilung|den job|die stelle|die firma|den arbeitgeber|das projekt|` +
          'den beruf) gewechselt(?![\\p{L}])|' +
          `^${I('bin|sind')} (?:[\\p{L}\\p{N}.-]+ ){0,4}?(?:gewechselt|(?:versetzt|befördert|eingestellt|entlassen) worden)(?![\\p{L}])|` +
          `^${I('wurde|wurden')} (?:[\\p{L}\\p{N}.-]+ ){0,4}?(?:versetzt|befördert|eingestellt|entlassen|übernommen)(?![\\p{L}])|` +
          '^(?:sie haben|man hat|die firma hat|mein chef hat|meine chefin hat) mich (?:[\\p{L}\\p{N}.-]+ ){0,4}?' +
          '(?:versetzt|gesteckt|eingeteilt|befördert|geschickt)(?![\\p{L}])',
        'u',
      ),
    ],
    [
      'preference',
      'routine (de)',
      new RegExp(
        `^(?:(?:ich|wir) (?!(?:würde|wäre|hätte|war|waren)(?![\\p{L}]))[\\p{L}]+|(?:${OFTEN} )?(?:[\\p{L}\\p{N}.-]+ ){0,4}?[\\p{L}]+ (?:ich|wir))(?![\\p{L}])`,
        'u',
      ),
      (_m, _s, clause) => FREQUENCY.test(clause.toLowerCase()),
    ],
  ],
};
