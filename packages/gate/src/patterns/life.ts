/**
 * The English clause patterns for what the owner's life is now and how it changes: the project
 * or team they are on, their employer and manager, a partner they live with or left, the routines
 * they keep, and the changes of each ("they moved me off Falcon onto Heron", "I started at Globex
 * on Monday", "I left Acme", "I go climbing every Tuesday"). A bare name counts only when the
 * owner wrote it capitalised ("I left Acme", never "I left the oven on").
 *
 * @module
 */
import type { ClausePattern } from './clauses.js';
import { capitalisedIn } from './language.js';
import { ADV, NOT_NAMES, REL } from './vocabulary.js';

/** Where someone works: a project, team, office or role. */
const UNIT =
  '(?:project|team|squad|crew|account|programme|program|initiative|workstream|department|division|' +
  'unit|office|branch|site|role|position|desk|practice|lab|rollout|migration|redesign|rewrite|' +
  'platform|product|launch|board)s?';
/** "project Falcon", "the payments team", "a new role", "the Berlin office". */
const UNIT_PHRASE =
  `(?:project [\\p{L}\\p{N}-]+|(?:the|a|an|my|our|their|a new|another) (?:[\\p{L}\\p{N}'&-]+ ){0,3}?${UNIT}` +
  '(?! (?:call|meeting|chat|thread|channel|page|doc|email|review|party|group)\\b))';
/** One word that may be a name; it counts only when it is capitalised where the owner wrote it. */
const NAME =
  "(?!(?:the|a|an|my|our|your|their|his|her|it|this|that|some|there|here|home|work|up|in|on|off|out|over|back|early|late|hold)\\b)([\\p{L}\\p{N}][\\p{L}\\p{N}&'.-]*)";
/** Where someone works, or a capitalised name. */
const WHERE = `(?:${UNIT_PHRASE}|${NAME})`;

/** Every captured word of a match is a name the owner wrote capitalised. */
const namesIn = (m: RegExpExecArray, _statement: string, clause: string) =>
  m
    .slice(1)
    .every(
      (w) =>
        w === undefined ||
        (capitalisedIn(clause, w) && !NOT_NAMES.has(w.charAt(0).toUpperCase() + w.slice(1))),
    );

/** A statement that says the fact is current ("now", "these days"). */
const NOW = /\b(?:now|currently|these days|at the moment|full[- ]time|officially|since)\b/;

/** A weekday, singular. */
const DAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)day';
/** How often: "every Tuesday", "on weekends", "twice a week", "each morning", "daily" (not "daily stand-up"). */
const FREQUENCY = new RegExp(
  '\\b(?:every (?:single )?(?:day|morning|evening|night|afternoon|week|weekend|weekday|month|year|' +
    `summer|winter|other (?:day|week|weekend)|\\d+ (?:days|weeks|hours)|${DAY}(?: (?:morning|afternoon|evening|night))?)|` +
    `each (?:day|morning|evening|night|week|weekend|month|year|${DAY})|(?:on|at) (?:the )?weekends|` +
    `on weekdays|on ${DAY}s|${DAY}s? (?:morning|afternoon|evening|night)s|` +
    '(?:once|twice|three times|four times|five times|\\d+ times|a few times|several times|a couple of times) ' +
    '(?:a|per|every|each) (?:day|week|month|year)|(?:daily|nightly|weekly|fortnightly|monthly)(?! [a-z])|' +
    'most (?:days|mornings|evenings|nights|weekends))\\b',
);
/** The clause itself says how often (the frequency of another clause may be someone else's). */
const routine = (_m: RegExpExecArray, _statement: string, clause: string) =>
  FREQUENCY.test(clause.toLowerCase());
/** Adverbs before a routine's verb ("I usually …", "we only …"); never the verb itself. */
const OFTEN_WORDS =
  'really|also|just|still|actually|always|usually|now|often|sometimes|normally|typically|' +
  'generally|mostly|only|never|even|currently|both|all|do|then|so';
const OFTEN_ADV = `(?:(?:${OFTEN_WORDS})\\s+)*`;
/** Past tenses that do not end in -ed: a routine is said in the present. */
const IRREGULAR_PAST =
  'heard|saw|said|told|thought|felt|found|made|took|gave|got|went|came|knew|left|ran|ate|drank|' +
  'bought|brought|spent|met|sent|wrote|kept|began|became|forgot|missed|had|did|was|were';

/** Current work, its changes, relationships that changed, and routines. */
export const LIFE_PATTERNS: readonly ClausePattern[] = [
  [
    'identity',
    'current work',
    new RegExp(
      '^(?:i|we) (?:am|are|have been) (?:(?:now|currently|still|officially|mostly|also)\\s+)*' +
        `(?:(?:on|in|part of|working on|leading|running|heading(?: up)?|managing|assigned to|staffed on) ${UNIT_PHRASE}|` +
        `(?:on|working on|leading|assigned to|staffed on) ${NAME}(?: (?:now|these days|at the moment|full[- ]time))?$)`,
      'u',
    ),
    (m, statement, clause) => namesIn(m, statement, clause) && (!m[1] || NOW.test(statement)),
  ],
  [
    'identity',
    'role on',
    new RegExp(
      '^i am (?:(?:now|currently|still)\\s+)?(?:the|a|an|our) (?:[\\p{L}-]+ ){0,2}?(?:lead|manager|owner|' +
        'engineer|designer|pm|developer|architect|head|director|analyst|scientist|researcher|tester|' +
        `contractor|consultant) (?:on|for|of|at|in) ${WHERE}`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'reassigned',
    new RegExp(
      '^(?:they|management|hr|work|the company|(?:my|our) (?:new )?(?:boss|manager|company|employer|lead|' +
        'director|team lead|cto|ceo|vp)) (?:(?:have|has|just|finally|recently)\\s+)*(?:moved|put|switched|' +
        'transferred|reassigned|assigned|shifted|seconded|rotated|pulled|promoted|made) me ' +
        `(?:(?:off|from|out of|to|onto|on|into|over to|across to) ${WHERE}|(?:the |a |an )?(?:lead|head|manager|director|team lead|partner))`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'moved over',
    new RegExp(
      '^(?:i|we) (?:(?:have|had|been|got|was|were|am being|are being|just|recently|finally)\\s+)*' +
        '(?:moved|transferred|reassigned|assigned|seconded|rotated|promoted|put|switched|shifted|pulled|' +
        `poached|hired|recruited|brought) (?:off|from|out of|to|onto|on|into|over to|across to|by|at|as) ${WHERE}`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'workplace',
    new RegExp(
      `^(?:i|we) ${ADV}(?:work|am working|are working) (?:from|out of|in) (?:the|our|a) [\\p{L}\\p{N}' -]{1,30}? (?:office|branch|site|hub|studio|lab|plant|warehouse|store)\\b`,
      'u',
    ),
  ],
  ['identity', 'promoted', /^i (?:was|have been|have just been|just got|got) promoted\b/],
  [
    'identity',
    'switched teams',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have )?(?:switched|changed|moved|swapped|rotated) (?:teams|projects|departments|` +
        'roles|jobs|offices|desks|companies|employers|careers|squads)\\b',
    ),
  ],
  [
    'identity',
    'joined',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have )?(?:joined|rejoined|started (?:at|with|working (?:at|for|on|with))|` +
        'started (?:a new|my new) (?:job|role|position|contract|placement|internship) (?:at|with|on)|' +
        'am starting (?:at|with)|start (?:at|with)|began (?:at|working (?:at|for))|went to work (?:at|for)|' +
        `signed with) ${WHERE}`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'left',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have )?(?:left|quit|resigned from|retired from|was (?:let go|laid off|fired|made redundant) ` +
        '(?:from|by)|got (?:laid off|fired|let go|made redundant) (?:from|by)|handed in my notice at) ' +
        '(?:(?:the|my|our) (?:[\\p{L}-]+ ){0,2}?(?:team|project|company|firm|job|role|position|department|startup|band|board|programme|program)\\b|' +
        `${NAME})(?! (?:at|this|today|tonight|yesterday|last|early|late|in a|on the|for (?:the|a))\\b)`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'reports to',
    new RegExp(
      `^i ${ADV}report (?:directly )?to (?:a new (?:manager|boss|lead)|the (?:cto|ceo|vp|head|director)\\b|${NAME})`,
      'u',
    ),
    namesIn,
  ],
  [
    'identity',
    'working as',
    /^i am (?:(?:now|currently|officially)\s+)?(?:freelancing|contracting|self-employed|consulting (?:for|full[- ]time|now)|job hunting|looking for (?:a (?:new )?job|work)|on (?:parental|maternity|paternity|sick|garden) leave|working (?:from home|remotely|part[- ]time|full[- ]time|freelance|nights|weekends))\b/,
  ],
  [
    'relationship',
    'together or apart',
    new RegExp(
      `^(?:(?:my|our) ${REL} and i|we) (?:(?:have|had|just|finally|recently|officially)\\s+)*(?:broke up|broken up|split up|` +
        'separated|divorced|got (?:married|engaged|divorced|back together|together)|are (?:getting (?:married|divorced)|' +
        'separating|engaged|married|expecting|moving in together|back together|no longer together)|moved in together)\\b' +
        '(?! (?:the|a|an|it|this|that|them|up)\\b)',
    ),
  ],
  [
    'relationship',
    'partner',
    new RegExp(
      `^i ${ADV}(?:have )?(?:(?:broke up|broken up|split up|separated) (?:with|from) (?:my|our|${NAME})|` +
        '(?:broke up|broken up|split up|separated)(?! (?:the|a|an|it|this|that|them)\\b)|' +
        `(?:moved in with|am moving in with|am (?:living with|engaged to|married to)) (?:my|our|someone|${NAME})|` +
        `(?:am (?:dating|going out with)) (?:someone|somebody|a (?:guy|girl|man|woman)|${NAME})|am seeing (?:someone|somebody))`,
      'u',
    ),
    namesIn,
  ],
  [
    'preference',
    'routine',
    new RegExp(
      `^(?:i|we) ${OFTEN_ADV}(?!(?:${IRREGULAR_PAST}|${OFTEN_WORDS}|am|are|not|used|would|could|should|will|might|may|must|can|cannot|` +
        'want|wish|hope|try|think|feel|guess|mean|know|see(?! (?:my|our|a|an)\\b)|say)\\b)' +
        '(?:have(?= (?:to|dinner|lunch|breakfast|tea|coffee|a|an|my|our|class|classes|lessons?|practice|therapy|physio|training)\\b)|' +
        '(?!have\\b)[a-z]+(?<!ed))\\b',
    ),
    routine,
  ],
  [
    'preference',
    'routine change',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have |had )?(?:started|begun|began|taken up|took up|got into|gotten into|switched to) [a-z]+ing\\b`,
    ),
    routine,
  ],
];
