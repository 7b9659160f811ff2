/**
 * The pattern gate: the belief gate keel runs when no local model is available. Deterministic,
 * English only, no I/O. It answers "yes" only for first-person statements of the shapes a durable
 * fact usually takes (preferences, corrections, decisions, identity, relationships, plans), for
 * reminders the owner asks for ("remind me to …", "don't let me forget …"), the owner's own
 * appointments and deadlines with a day or time, and the owner's own past events with a date ("I
 * went to the dentist yesterday"): keel sends reminders and resolves dates. It answers "no" for
 * everything else: questions, requests, hypotheticals, reported speech, reactions to the
 * assistant, and anything it does not recognise.
 *
 * The patterns are tuned for precision over recall: a missed turn is still in the episode log and
 * can be found by recall, while a wrong "yes" costs a curator call and risks a wrong belief. The
 * labelled set `belief-gate.labels.json` (beside this file) measures both; its test prints the
 * figures.
 *
 * @module
 */
import {
  BELIEF_CATEGORIES,
  type BeliefCategory,
  type BeliefGate,
  type GateVerdict,
} from './belief.js';
import { throwIfCancelled } from './cancel.js';
import { type Capture, captureExplicit } from './capture.js';

/** The pattern gate reads at most this many characters of a turn (its beginning). */
export const PATTERN_GATE_MAX_CHARS = 4000;
/** Sentences longer than this (characters) are not read: they are pasted prose, not a statement. */
const MAX_SENTENCE_CHARS = 600;

/** The pattern gate's verdict order when a turn matches several kinds: the first one wins. */
const PRIORITY: readonly BeliefCategory[] = BELIEF_CATEGORIES;

// ---------------------------------------------------------------------------------------------
// Vocabulary

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december';
const MONTHS_NOT_MAY =
  'january|february|march|april|june|july|august|september|october|november|december';
const SEASONS = 'spring|summer|autumn|fall|winter';

/** A time expression that puts a plan beyond the current conversation. */
const TIME = new RegExp(
  [
    `\\bnext (?:week|month|year|term|semester|${SEASONS})\\b`,
    `\\bthis (?:coming )?(?:${SEASONS}|year)\\b`,
    `\\bin (?:a few|a couple of|two|three|four|six|\\d+) (?:weeks|months|years)\\b`,
    `\\b(?:in|from|by|until|on|since|before|after|starting) (?:early |late |mid[- ])?(?:${MONTHS})\\b`,
    `\\b(?:${MONTHS_NOT_MAY})\\b`,
    '\\bthe (?:\\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth) of\\b',
    '\\bon the \\d{1,2}(?:st|nd|rd|th)\\b',
    '\\bin \\d{4}\\b',
    '\\bfor (?:two|three|four|\\d+) (?:weeks|months)\\b',
    '\\bend of (?:the )?(?:month|year|summer)\\b',
  ].join('|'),
);

/** People and animals in the owner's life. */
const RELATIONS = [
  'wife',
  'husband',
  'partner',
  'spouse',
  'girlfriend',
  'boyfriend',
  'fianc[eé]e?',
  'mother',
  'mom',
  'mum',
  'mommy',
  'mummy',
  'mama',
  'father',
  'dad',
  'daddy',
  'papa',
  'parents',
  'sister',
  'brother',
  'siblings?',
  'sons?',
  'daughters?',
  'child',
  'children',
  'kids?',
  'baby',
  'twins',
  'grandmother',
  'grandma',
  'granny',
  'nan',
  'nana',
  'grandfather',
  'grandpa',
  'granddad',
  'grandparents',
  'grandsons?',
  'granddaughters?',
  'grandchildren',
  'grandkids',
  'aunt',
  'auntie',
  'uncle',
  'cousin',
  'niece',
  'nephew',
  'in-laws',
  '(?:mother|father|sister|brother|son|daughter)-in-law',
  'god(?:mother|father|son|daughter)',
  'friend',
  'bestie',
  'roommate',
  'flatmate',
  'housemate',
  'neighbou?r',
  'boss',
  'manager',
  'colleague',
  'co-?worker',
  'co-?founder',
  'doctor',
  'gp',
  'dentist',
  'therapist',
  'psychiatrist',
  'vet',
  'lawyer',
  'accountant',
  'landlord',
  'landlady',
  'mentor',
  'coach',
  'tutor',
  'ex',
  'dog',
  'cat',
  'puppy',
  'kitten',
  'horse',
  'pony',
  'rabbit',
  'parrot',
  'hamster',
  'pet',
].join('|');
/** Words that may stand before a relation: "my older sister", "my step-dad", "my great-aunt". */
const RELATION_MODS =
  '(?:(?:little|older|younger|big|baby|twin|eldest|oldest|youngest|best|late|ex|new|old|great|step|half|closest|childhood|work|first|second)[- ]?)*';
const REL = `(?:${RELATION_MODS}(?:${RELATIONS}))`;

/** Capitalised words that follow "my sister" without being a name. */
const NOT_NAMES = new Set(
  (
    'I A An The This That These Those It He She They We You And But So Or Also Oh By Because ' +
    'Can Could Do Does Did Is Are Was Were Will Would What When Where Why How Which Who Just Not ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May ' +
    'June July August September October November December Christmas Easter'
  ).split(' '),
);

const JOBS = [
  'nurse',
  'doctor',
  'teacher',
  'engineer',
  'developer',
  'programmer',
  'designer',
  'student',
  'lawyer',
  'accountant',
  'manager',
  'farmer',
  'writer',
  'author',
  'poet',
  'chef',
  'cook',
  'baker',
  'artist',
  'painter',
  'musician',
  'singer',
  'drummer',
  'scientist',
  'researcher',
  'photographer',
  'consultant',
  'architect',
  'electrician',
  'plumber',
  'carpenter',
  'pilot',
  'firefighter',
  'police officer',
  'paramedic',
  'mechanic',
  'dentist',
  'therapist',
  'journalist',
  'retiree',
  'freelancer',
  'homemaker',
  'stay-at-home (?:mom|mum|dad|parent)',
  'software engineer',
  'data scientist',
  'professor',
  'lecturer',
  'veterinarian',
  'vet',
  'midwife',
  'carer',
  'caregiver',
  'barista',
  'bartender',
  'waiter',
  'waitress',
  'cashier',
  'driver',
  'soldier',
  'officer',
  'collector',
  'gamer',
  'runner',
  'climber',
  'gardener',
  'knitter',
  'blogger',
  'youtuber',
  'podcaster',
  'volunteer',
  'swimmer',
  'surfer',
  'entrepreneur',
  'founder',
  'ceo',
  'intern',
  'apprentice',
  'graduate',
  'grad student',
  'phd student',
  'playwright',
  'screenwriter',
  'editor',
  'translator',
  'librarian',
  'pharmacist',
  '[a-z]+ist',
  '[a-z]+ian',
].join('|');

const LANGUAGES =
  'english|spanish|french|german|italian|portuguese|dutch|swedish|norwegian|danish|finnish|' +
  'icelandic|polish|czech|slovak|hungarian|romanian|bulgarian|greek|turkish|russian|ukrainian|' +
  'arabic|hebrew|persian|farsi|hindi|urdu|bengali|punjabi|tamil|telugu|mandarin|cantonese|' +
  'chinese|japanese|korean|vietnamese|thai|indonesian|malay|tagalog|swahili|yoruba|amharic|' +
  'catalan|basque|welsh|irish|gaelic|latin|sign language|asl|bsl';

const HEALTH =
  'diabetes|asthma|adhd|add|autism|celiac disease|coeliac disease|epilepsy|migraines?|arthritis|' +
  "anxiety|depression|ibs|crohn'?s(?: disease)?|colitis|lupus|ms|multiple sclerosis|" +
  'high blood pressure|hypertension|low blood pressure|(?:back|knee|hip|neck) (?:pain|problems|issues)|' +
  '(?:bad|weak|dodgy|bad) (?:back|knee|knees|hip|heart)|heart condition|heart disease|cancer|' +
  'long covid|insomnia|sleep apnea|sleep apnoea|tinnitus|(?:peanut|nut|tree nut|gluten|dairy|shellfish|egg|soy|pollen|cat|dog|bee) allerg(?:y|ies)|' +
  'allerg(?:y|ies)|eczema|psoriasis|endometriosis|pcos|hypothyroidism|hyperthyroidism|thyroid|' +
  'chronic [a-z]+|ptsd|ocd|bipolar(?: disorder)?|dyslexia|fibromyalgia|glaucoma|hearing loss';

/** Base verbs for life plans that do not need a date to count as durable. */
const STRONG_PLAN =
  'move (?:to|in|out|house|abroad|back|away)|relocate|emigrate|quit|retire|marry|get married|get engaged|' +
  'get divorced|have a baby|go back to (?:school|university|college|work)|apply (?:for|to)|enrol|enroll|' +
  'sell (?:my|our)|buy (?:a|our|my) (?:house|home|flat|apartment|car|place)|adopt|' +
  'start (?:(?:a|an|my|our) (?:new )?(?:job|business|company|course|degree|family|career|class|diet|podcast|blog|channel)|' +
  'learning|training|working|school|university|college|[a-z]+ing)|learn|take up|' +
  'switch (?:jobs|careers|to)|change (?:jobs|careers|my job)|' +
  'open (?:a|my|our) (?:shop|business|restaurant|cafe|bakery|studio|practice)|renovate|become (?:a|an)|' +
  'graduate|propose|go vegan|go vegetarian|train for|' +
  'run (?:a|the|my first) (?:[\\w-]+ )?(?:marathon|half marathon|race)';
/** Base verbs for plans that need a date to count ("visit my aunt in May"). */
const WEAK_PLAN =
  'travel|visit|fly|go to|head to|spend|attend|host|throw|celebrate|study|' +
  'take (?:a|my|our) (?:trip|holiday|vacation|break|sabbatical|course|class)';

/** -ing forms of life plans for "thinking of …" and "considering …". */
const CONSIDERED_PLAN =
  'moving|relocating|emigrating|selling|buying (?:a|an|our|my) (?:[\\w-]+ )?(?:house|home|flat|apartment|car|place|property)|' +
  'quitting|switching|applying|starting|' +
  'getting (?:married|divorced|engaged|a (?:dog|cat|puppy|kitten|new job|divorce|degree|mortgage))|' +
  'adopting|learning|changing (?:jobs|careers)|retiring|going back|submitting|majoring|becoming|' +
  'taking up|upgrading|enrolling|studying|pursuing|renting out|opening|launching|leaving my|' +
  'going (?:vegan|vegetarian|freelance|part[- ]time)';

const ADV =
  '(?:(?:really|absolutely|truly|just|totally|honestly|genuinely|kind of|kinda|do|still|also|' +
  'always|actually|definitely|seriously|now|recently|finally|already|even|usually|generally|' +
  'personally|mostly|pretty much|both|all|currently|officially)\\s+)*';

const WEEKDAYS = '(?:mon|tues|wednes|thurs|fri|satur|sun)days?';

/**
 * When an appointment, deadline or plan is: a day, date or clock time ahead ("tomorrow at 9",
 * "next Tuesday", "on the 1st"), or any {@link TIME}.
 */
const WHEN = new RegExp(
  [
    TIME.source,
    '\\b(?:tomorrow|tonight|the day after tomorrow)\\b',
    `\\b(?:(?:on|next|this|this coming|every) )?${WEEKDAYS}\\b`,
    '\\b(?:this|next) (?:morning|afternoon|evening|weekend)\\b',
    '\\b(?:later )?today at\\b',
    '\\bat (?:\\d{1,2}(?::\\d{2})?|noon|midday|midnight)\\b',
    '\\b\\d{1,2}(?::\\d{2})? ?(?:am|pm)\\b',
    '\\bin (?:a|an|one|two|three|four|five|a few|a couple of|\\d+) (?:days?|weeks?|hours?)\\b',
    '\\b(?:on|by|before) the \\d{1,2}(?:st|nd|rd|th)?\\b',
  ].join('|'),
);

/** When a past event was: "yesterday", "last week", "three days ago". */
const PAST_WHEN =
  `\\b(?:yesterday|the day before yesterday|last (?:week|weekend|month|year|night|${SEASONS}|${WEEKDAYS}|${MONTHS})|` +
  '(?:a|an|one|two|three|four|five|six|a few|a couple of|\\d+) (?:days?|weeks?|months?) ago)\\b';
const PAST_WHEN_RE = new RegExp(PAST_WHEN);
/** A statement that opens with its date ("Yesterday, I went to the dentist."). */
const PAST_WHEN_FIRST = new RegExp(`^(?:[\\w']+ ){0,2}?${PAST_WHEN}`);

/** Dated things in the owner's calendar. */
const APPOINTMENTS =
  '(?:appointment|appt|meeting|interview|flight|train|exam|exams|test|deadline|surgery|operation|' +
  'check-?up|scan|consultation|session|class|lesson|shift|hearing|court date|viva|presentation|' +
  'review|recital|concert|gig|match|race|game|wedding|party|date|trip|booking|reservation|' +
  'rent|bill|payment|vaccination|jab|shot|physio|therapy|treatment|visit|dinner|lunch|birthday|' +
  'anniversary|due date|move|moving day|holiday|vacation)';
/** Words that may stand between "a" and the appointment, but not a preposition or a possessive. */
const APPOINTMENT_MODS =
  "(?:(?!(?:about|for|with|on|of|in|to|from|at|my|your|our|the|what|how|that|this)\\b)[\\w'-]+ ){0,3}?";

/** "remind me to …", "don't let me forget the rent", "make sure I remember to …". */
const REMINDER =
  /^(?:(?:please|pls|hey|so|and|also|oh|ok|okay)\s+)*(?:(?:can|could|would|will) you (?:please )?|please )?(?:remind me (?:to|that|about|of|on|at|in|tomorrow|tonight|next|this|every|before)\b(?! (?:what|how|who|whom|where|why|which|whether|if)\b)|remind me(?: please)?$|(?:do not|never) let me forget (?:to|the|my|our|about|that|tomorrow|on)\b|make sure (?:i|that i) (?:remember|do not forget) (?:to|the|my|our|about|that)\b|set (?:a|me a) reminder (?:to|for|about|that|on|at)\b)/;
/** A reminder of (or about) something needs a day or time in the sentence to be a real one. */
const REMINDER_NEEDS_TIME = /(?:remind me (?:about|of)\b|remind me(?: please)?$)/;
/** Reminders whose wording makes them uncertain or not the owner's own. */
const REMINDER_HEDGE = /\b(?:whether|maybe|perhaps|in case)\b/;

// ---------------------------------------------------------------------------------------------
// Patterns over one normalised clause (lower case, contractions expanded, starting with its
// subject). Each is [category, name, pattern, extra check].

type ClausePattern = readonly [
  BeliefCategory,
  string,
  RegExp,
  /** A further condition on the match and the statement's lower-cased text (e.g. a date in it). */
  ((m: RegExpExecArray, statement: string) => boolean)?,
];

/** Objects of "I love …" that are reactions to the conversation, not tastes. */
const REACTION_OBJECT =
  /^(?:it|this|that|these|those|them|him|her|you|your|yours|how|what|when|the way|both|either|neither|some of|all of|most of|the (?:idea|ideas|sound|suggestion|suggestions|option|options|look|list|recipe|recipes|plan|first|second|third|last|other|one|ones|tips|advice|answer|answers|response|explanation|example|examples|name|names|title|format|sound of|way|conversation|chat|discussion|talk|article)|to (?:hear|see|know|help|chat|talk|say|admit|bother|ask|be|think))\b/;
const SUGGESTED = /\byou (?:suggested|mentioned|recommended|said|gave|listed|shared|proposed)\b/;
/** "I like the clean lines", "I love the combination of …": a specific thing under discussion. */
const DEFINITE = /^(?:all )?the\b/;
/**
 * Verbs after which "the …" is still a taste: ongoing ones ("I've been loving the …", "I'm a fan
 * of the …"), preferences ("I prefer the aisle seat") and dislikes ("I hate the cold"), which are
 * rarely reactions to a suggestion.
 */
const ONGOING =
  /\b(?:have been|am|into|fan of|obsessed|prefer|hate|hated|dislike|detest|loathe|cannot stand|do not)\b/;
const tasteObject = (m: RegExpExecArray) => {
  const verb = m[1] ?? '';
  const object = (m[2] ?? '').trim();
  return (
    object.length > 1 &&
    !REACTION_OBJECT.test(object) &&
    !SUGGESTED.test(object) &&
    (!DEFINITE.test(object) || ONGOING.test(verb))
  );
};

const CLAUSE_PATTERNS: readonly ClausePattern[] = [
  // corrections
  [
    'correction',
    'no longer',
    new RegExp(
      `^(?:i|we) ${ADV}(?:no longer|do not (?:[\\w-]+ ){1,3}any ?more|am not (?:[\\w-]+ ){1,3}any ?more|` +
        'stopped (?:eating|drinking|smoking|working|using|taking|going|seeing|dating|playing|living)|' +
        'quit (?:smoking|drinking|vaping|sugar|meat|coffee|alcohol))\\b',
    ),
  ],
  ['correction', 'is actually', /^(?:my|our) [\w' -]{1,40} (?:is|are) actually\b(?! [a-z]+ing\b)/],
  // identity
  [
    'identity',
    'name',
    /^(?:my (?:first |last |full |middle |nick)?name is|i am called|i go by|everyone calls me|(?:please )?call me) \S/,
  ],
  [
    'identity',
    'home',
    new RegExp(
      `^(?:i|we) ${ADV}(?:(?:live|am living|are living|have (?:lived|been living)|grew up|was born|were born|` +
        'was raised|were raised|am based|are based) (?:(?:originally|just|now|currently)\\s+)*(?:in|near|outside|on|at) \\S|' +
        '(?:moved|have moved|relocated|have relocated|emigrated) (?:(?:just|now|back)\\s+)*(?:to|from|here|abroad) ?\\S?)',
    ),
  ],
  ['identity', 'from', /^(?:i|we) (?:am|are|come) (?:originally )?from \S/],
  [
    'identity',
    'work',
    new RegExp(
      `^i ${ADV}(?:work|am working|have been working|have worked) (?:as|at|for|in|from home|remotely|nights|night shifts|part[- ]time|full[- ]time|freelance)\\b`,
    ),
  ],
  [
    'identity',
    'occupation',
    new RegExp(
      `^i am ${ADV}(?:a|an) (?:[\\w-]+ ){0,2}?(?:${JOBS})\\b(?! (?:fan|question|idea)\\b)`,
    ),
  ],
  [
    'identity',
    'work status',
    /^i am (?:now )?(?:retired|self-employed|unemployed|between jobs|on (?:maternity|paternity|sick) leave|a stay-at-home)\b/,
  ],
  [
    'identity',
    'runs a business',
    /^(?:i|we) (?:run|own|manage|started|founded) (?:a|an|my|our) (?:[\w-]+ ){0,2}(?:business|company|shop|store|bakery|restaurant|cafe|café|farm|startup|blog|channel|podcast|practice|studio|clinic|firm|agency)\b/,
  ],
  [
    'identity',
    'health',
    new RegExp(
      `^(?:i|we) am ${ADV}(?:severely |mildly |deathly |very |quite )?(?:allergic|intolerant|lactose[- ]intolerant|` +
        'gluten[- ]intolerant|diabetic|pre-?diabetic|pregnant|epileptic|asthmatic|colou?r[- ]?blind|deaf|' +
        'hard of hearing|blind|autistic|dyslexic|celiac|coeliac|anaemic|anemic|sober|teetotal|vegan|' +
        'vegetarian|pescatarian|kosher|halal|on (?:a )?(?:keto|low-carb|gluten-free|low-fodmap|plant-based|vegan) diet)\\b',
    ),
  ],
  [
    'identity',
    'condition',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have|have got|suffer from|was diagnosed with|got diagnosed with|have been diagnosed with|` +
        'live with|am living with|am recovering from|am being treated for) ' +
        `(?:(?:a|an|type [12]|chronic|severe|mild|early[- ]onset)\\s+)*(?:${HEALTH})\\b`,
    ),
  ],
  [
    'identity',
    'diet',
    /^i (?:do not|cannot|never|will not) (?:eat|drink)\b(?! (?:that|this|it|anything|much|more|now|today|right now)\b)/,
  ],
  [
    'identity',
    'age',
    /^i am (?:\d{1,2}(?: years old| yo)?$|\d{1,2} years old\b|in my (?:early |mid |late )?(?:twenties|thirties|forties|fifties|sixties|seventies|eighties)\b)|^i (?:just )?turned \d{1,2}\b/,
  ],
  [
    'identity',
    'language',
    new RegExp(
      `^i ${ADV}(?:speak|am fluent in|am learning|have been learning|am studying|have been studying|` +
        'am practi[cs]ing|have been practi[cs]ing|grew up speaking) ' +
        `(?:(?:some|a bit of|a little|a little bit of|basic|conversational|fluent|native|my)\\s+)*(?:${LANGUAGES})\\b`,
    ),
  ],
  [
    'identity',
    'hobby',
    new RegExp(
      `^(?:i|we) ${ADV}(?:started|have started|took up|have taken up|began|have begun) ` +
        '(?:collecting|playing|learning|knitting|sewing|painting|baking|running|cycling|climbing|' +
        'gardening|volunteering|practi[cs]ing|studying|writing|drawing|woodworking|swimming|boxing|' +
        'dancing|singing|brewing|fishing|hiking|journaling|meditating|training|crocheting|quilting|' +
        'pottery|yoga|golf|tennis|chess|the (?:piano|guitar|violin|drums|cello))\\b',
    ),
  ],
  [
    'identity',
    'long practice',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have been|have) (?!(?:waiting|looking|trying|searching|thinking|meaning|wondering)\\b)` +
        '(?:[\\w-]+ing|played|practi[cs]ed|collected|run|lived|worked) ' +
        "(?:[\\w'-]+ ){0,4}(?:for (?:\\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several|a few|over \\w+) (?:years?|decades?)|" +
        'since (?:\\d{4}|i was|childhood|college|school|university|high school|last year))\\b',
    ),
  ],
  [
    'identity',
    'membership',
    /^(?:i|we) (?:am|are) (?:(?:also|actually|now|a)\s+)*(?:part of|a member of|member of|on the board of|in) (?:a|an|the|several|two|three|our|my) (?:[\w-]+ ){0,3}(?:groups?|club|team|band|choir|society|league|union|church|community|committee|orchestra)\b/,
  ],
  [
    'identity',
    'kind of person',
    /^i am (?:not )?(?:really )?(?:a|an) [\w-]+ (?:person|owl|lark)\b/,
  ],
  ['identity', 'generation', /^(?:i|we) (?:am|are) (?:a )?(?:first|second|third)[- ]generation\b/],
  [
    'identity',
    'possession',
    /^(?:i|we) (?:have|own|have got) (?:a|an|two|three|four|five|\d+) (?:(?!(?:about|for|with|on|of|in|to|from|my|your|the)\b)[\w-]+ ){0,2}?(?:car|cars|house|flat|apartment|farm|allotment|bike|motorbike|motorcycle|boat|van|truck|business|collection|channel|blog|podcast)\b/,
  ],
  [
    'identity',
    'routine tool',
    /^(?:i|we) (?:have (?:(?:already|also|now)\s+)*been|am|are) (?:(?:already|also|now)\s+)*using [\w' .-]{2,40}? to (?:track|manage|learn|practi[cs]e|plan|log|budget|organi[sz]e|study|meditate)\b/,
  ],
  // relationships
  [
    'relationship',
    'marital status',
    /^i am (?:happily )?(?:married|engaged|divorced|widowed|separated|single|in a relationship|a (?:mum|mom|dad|father|mother|parent|grandparent|grandmother|grandfather|single parent|stepmom|stepmum|stepdad))\b/,
  ],
  [
    'relationship',
    'family',
    /^(?:i|we) (?:have|have got) (?:a|an|two|three|four|five|six|\d+) (?:(?:young|little|grown[- ]up|teenage|adult|older|younger|twin|baby|new|old|rescue|[\w-]+-year-old)\s+)*(?:kids?|children|sons?|daughters?|sisters?|brothers?|siblings|twins|grandchildren|grandkids|granddaughters?|grandsons?|dogs?|cats?|puppy|puppies|kittens?|horses?|goats?|pigs?|chickens?|rabbits?|parrots?|pets?)\b/,
  ],
  [
    'relationship',
    'relation fact',
    new RegExp(
      `^(?:my|our) ${REL}(?:'s)? (?:lives|live|works|work|moved|studies|goes to|go to|just turned|turned \\d|passed away|died|` +
        'has been (?:teaching|helping|living with) me|is (?:teaching|living with) me|got (?:married|engaged|divorced)|' +
        'is (?:getting married|pregnant|expecting|allergic|retired|married|engaged|divorced|moving|' +
        'in (?:college|school|hospital|university|kindergarten|year \\d+|grade \\d+)|\\d+|a [\\w-]+)|' +
        'are (?:\\d+|twins|married|divorced|getting married|moving))\\b',
    ),
  ],
  // decisions
  [
    'decision',
    'decided',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have |had )?(?:finally |just )?(?:decided|chose|have chosen|made (?:up )?(?:my|our) (?:mind|decision)|settled on|committed to|opted)\\b`,
    ),
  ],
  [
    'decision',
    'life change',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have )?(?:quit (?:my|our|the) (?:job|course|degree)|resigned|retired|left my job|handed in my notice|` +
        'accepted (?:a|an|the) (?:job|offer|position|role)|got (?:engaged|married|divorced|a new job|the job|promoted|' +
        'a dog|a cat|a puppy|a kitten)|adopted (?:a|an|two)|signed (?:a|the) (?:lease|contract|mortgage)|' +
        '(?:joined|rejoined) (?:a|an|the|my|our) (?:[\\w-]+ ){0,3}?(?:gym|club|choir|band|team|union|church|society|league|startup|book club)|' +
        'sold (?:my|our) (?:[\\w-]+ )?(?:car|house|flat|apartment|home|business|company)|' +
        'bought (?:a|an|my|our) (?:(?:new|first|used|second-hand|secondhand|electric|hybrid|old|little)\\s+)*' +
        '(?:car|house|home|flat|apartment|condo|bike|e-bike|motorbike|motorcycle|boat|van|truck|piano|property|cottage|place))\\b',
    ),
  ],
  [
    'decision',
    'from now on',
    /^(?:i|we) (?:will|am going to|are going to) (?:stop|quit|never|no longer|give up|cut out|stick to|switch to)\b(?! (?:forget|regret|get tired|stop)\b)/,
  ],
  [
    'decision',
    'going vegan',
    /^(?:i|we) (?:am|are) going (?:vegan|vegetarian|sober|freelance|part[- ]time|back to (?:school|university|college|work))\b/,
  ],
  // plans
  [
    'plan',
    'planning to',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:planning|going|hoping|intending|aiming|about|due|scheduled|set|preparing|getting ready) to (?:${STRONG_PLAN}|(${WEAK_PLAN}))\\b`,
    ),
    (m, sentence) => m[1] === undefined || TIME.test(sentence),
  ],
  [
    'plan',
    'on the way',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:moving|relocating|retiring|emigrating|getting married|having a baby|expecting a baby|` +
        'changing jobs|going back to|switching (?:jobs|careers)|(flying|travell?ing|heading|visiting|leaving|competing|starting|spending))\\b',
    ),
    (m, sentence) => m[1] === undefined || TIME.test(sentence),
  ],
  [
    'plan',
    'planning a',
    /^(?:i|we) (?:am|are) (?:(?:currently|also|now)\s+)*planning (?:a|an|my|our) (?:[\w-]+ ){0,2}(?:trip|move|wedding|holiday|vacation|visit|honeymoon|career change|retirement|relocation|renovation|sabbatical)\b/,
  ],
  [
    'plan',
    'signed up',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have |had )?(?:signed up|enrolled|registered|booked|applied|been accepted|got accepted|got a place|reserved) (?:for|in|to|at|a|an|my|our|on)\\b`,
    ),
  ],
  [
    'plan',
    'want to',
    new RegExp(
      `^(?:i|we) ${ADV}(?:want|hope|plan|intend|aim|am hoping|am aiming|am determined|am going) to (?:${STRONG_PLAN}|${WEAK_PLAN})\\b`,
    ),
    (_m, sentence) => TIME.test(sentence),
  ],
  [
    'plan',
    'considering',
    new RegExp(
      `^(?:i|we) (?:am|are) ${ADV}(?:thinking|considering|weighing|contemplating|seriously thinking)(?: (?:of|about))? (?:${CONSIDERED_PLAN})\\b`,
    ),
  ],
  [
    'plan',
    'trying to',
    /^(?:i|we) (?:am|are|have been) (?:(?:really|still|also)\s+)*trying to (?:get back into|get into|cut (?:down on|back on|out)|quit|give up|lose weight|eat (?:less|more|healthier|better)|drink less|read more|exercise more|save (?:up|money|for)|learn|stick to|get better at|improve my)\b/,
  ],
  [
    'plan',
    'appointment',
    new RegExp(
      `^(?:my|our) (?!(?:absolute |all[- ]time |least )?(?:favou?rite|fave|go-to|dream|ideal|perfect|usual)\\b)(?:[\\w'-]+ ){0,3}?${APPOINTMENTS}s?(?: (?:to|from|with|at|in|for) [\\w'-]+(?: [\\w'-]+)?)? (?:is|are|has been moved|got moved|was moved|has been changed|got changed|was changed|has been rescheduled|got rescheduled|was rescheduled|is due|are due|is coming up|starts|begins|leaves|departs)\\b`,
    ),
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  [
    'plan',
    'have an appointment',
    new RegExp(
      `^(?:i|we) ${ADV}(?:have|have got|got|am having|are having|have booked|booked|am booked|have scheduled|scheduled|have arranged|arranged) (?:a|an|my|our|the|another|two|three) ${APPOINTMENT_MODS}${APPOINTMENTS}s?\\b`,
    ),
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  [
    'plan',
    'due',
    /^(?:i|we) (?:have|have got) to (?:submit|hand in|pay|file|renew|finish|send|return|book|call|pick up|collect|see)\b/,
    (m, sentence) => WHEN.test(m.input) || WHEN.test(sentence),
  ],
  // one-off events in the owner's own life, with their date
  [
    'other',
    'dated event',
    new RegExp(
      `^(?:i|we) ${ADV}(?:went (?:to|for|on)(?! (?:bed|sleep)\\b)|had (?:a|an|my|our|the|surgery|[\\w-]+ surgery)(?! (?:[\\w-]+ )?(?:day|night|week|weekend|morning|time|chat|look|think|go|question|idea|feeling)\\b)|` +
        'got (?:a|an|my|our|back from|married|engaged|divorced|promoted|fired|laid off|vaccinated|diagnosed)|' +
        'visited|attended|saw (?:a|an|my|our|the)|met (?:my|our|with)|flew (?:to|back|home)|came back from|returned from|' +
        'started|finished|passed|failed|moved|gave birth|took (?:my|our|a|an|the))\\b',
    ),
    (m, sentence) => PAST_WHEN_RE.test(m.input) || PAST_WHEN_FIRST.test(sentence),
  ],
  // preferences
  [
    'preference',
    'likes',
    new RegExp(
      `^(?:i|we) ${ADV}(love|like|enjoy|adore|prefer|hate|dislike|detest|loathe|cannot stand|do not like|do not enjoy|` +
        'do not care for|loved|liked|enjoyed|hated|am (?:not )?into|am (?:not )?(?:a )?(?:big |huge |massive |die-hard |lifelong )?fan of|' +
        'am obsessed with|have (?:always |never )?(?:loved|liked|hated|enjoyed)|have been (?:really )?(?:into|loving|enjoying|obsessed with)) (.+)$',
    ),
    tasteObject,
  ],
  [
    'preference',
    'favourite',
    /^(?:my|our) (?:absolute |all[- ]time |current |new )?(?:favou?rite|fave|go-to) [\w' -]{1,40}? (?:is|are|has to be)\b/,
  ],
  [
    'preference',
    'habit',
    /^i (?:always|usually|normally|never|only|typically|generally) (?:eat|drink|take|order|wear|sleep|listen to|read|watch|drive|use|buy|cook|work out|run|walk|cycle|bike|wake up|get up|go to bed|fly|travel|shop)\b/,
  ],
  [
    'preference',
    'how I take it',
    /^i (?:drink|take|have|like) my (?:coffee|tea|steak|eggs|martini|whisky|whiskey|burger|pizza)\b/,
  ],
];

// Sentence-level patterns: corrections span clauses ("Actually, my sister is Leah, not Lea").
const CORRECTION_MARKER =
  /\b(?:actually|correction|sorry|oops|my (?:mistake|bad)|i misspoke|i was wrong|scratch that|to correct|i meant)\b/;
const NOT_X_AT_END =
  /(?:,|;|—|–|\s-)\s*not\s+(?:the\s+|a\s+|an\s+|on\s+the\s+|in\s+|at\s+)?[\w'-]+(?:\s[\w'-]+)?[\s.!]*$/;
const FIRST_PERSON = /\b(?:i|my|we|our|me)\b/;
const GOT_IT_WRONG =
  /\bi (?:got|had) (?:that|it|this) wrong\b|\bi (?:was wrong|misspoke)\b|\bi meant (?:to say )?(?:that )?(?:i|my|we|our)\b/;

// ---------------------------------------------------------------------------------------------
// Text handling

/** Abbreviations whose full stop does not end a sentence. */
const ABBREVIATIONS = /\b(Dr|Mr|Mrs|Ms|Mx|St|Prof|Jr|Sr|Mt|vs|etc|approx|No)\./g;
const DOT = '\u2024'; // one-dot leader, stands in for a protected full stop

/** Contractions expanded so one pattern covers "I'm" and "I am". */
const CONTRACTIONS: readonly [RegExp, string][] = [
  [/\bi'm\b/g, 'i am'],
  [/\bim\b/g, 'i am'],
  [/\bi've\b/g, 'i have'],
  [/\bi'll\b/g, 'i will'],
  [/\bi'd\b/g, 'i would'],
  [/\bwe're\b/g, 'we are'],
  [/\bwe've\b/g, 'we have'],
  [/\bwe'll\b/g, 'we will'],
  [/\bwe'd\b/g, 'we would'],
  [/\bcan't\b/g, 'cannot'],
  [/\bwon't\b/g, 'will not'],
  [/\b(\w+)n't\b/g, '$1 not'],
  [/\b(he|she|it|that|there|what|who|where|here)'s\b/g, '$1 is'],
  [/\bgonna\b/g, 'going to'],
  [/\bwanna\b/g, 'want to'],
];

/** Discourse markers and hedges-free lead-ins stripped from the start of a clause. */
const LEAD_IN =
  /^(?:(?:oh|ah|well|also|actually|honestly|anyway|anyways|btw|by the way|fyi|just so you know|for the record|to be honest|tbh|fun fact|side note|yeah|yes|yep|no|nope|ok|okay|so|and|but|or|plus|now|then|sorry|hey|hi|hello|lol|haha|right|alright|though|because|since|as|which|while|i think(?: that)?|i guess|i feel like|i realized|i realised|i just realized|i just realised|i should mention|i should say|quick update|update|one more thing|good news|news)\b[\s!.]*)+/;
/** A time phrase at the start of a clause ("Next year I want …"). */
const LEAD_TIME = new RegExp(
  `^(?:(?:(?:next|this coming|this|last|in|from|by|starting|as of|since) (?:week|month|year|weekend|${SEASONS}|${MONTHS}|\\d{4})|` +
    `yesterday|tomorrow|tonight|(?:on |last |next |this )?${WEEKDAYS})\\s+)+`,
);

/** A sentence that opens like this is not about the real owner (hypothetical, fiction). */
const NOT_REAL =
  /^(?:if|suppose|supposing|imagine|pretend|hypothetically|assuming|what if|let's say|lets say|let us say|say (?:i|we)|in (?:the|my|this|a|your|our) (?:story|novel|book|game|dream|scenario|script|film|movie|poem|song|roleplay|role-play|play)|once upon a time)\b/;
/** A clause that asks rather than states. */
const INTERROGATIVE =
  /^(?:(?:do|does|did|can|could|would|should|will|shall|is|are|am|was|were|have|has|may|might|must)\s+(?:you|i|we|it|there|they|he|she|my|your|this|that|anyone|someone)\b|any (?:idea|tips|suggestions|advice|recommendations)\b)/;
/** A clause opening with a question word: a question at a sentence's start or in a question. */
const WH = /^(?:what|who|whom|whose|where|when|why|how|which)\b/;
/** Words that make a clause uncertain, conditional or a wish. */
const HEDGE =
  /\b(?:not sure|unsure|wonder|wondering|maybe|perhaps|might|whether|would|could|should|probably|possibly|hopefully|supposedly|if|unless|in case)\b/;
/** Someone else is speaking from here on ("she said …", "my friend thinks …"). */
const REPORTED =
  /\b(?!(?:i|we)\b)([a-z]+) (?:says?|said|tells?|told|asks?|asked|writes?|wrote|thinks?|thought|claims?|claimed)\b|\baccording to\b/;

interface Clause {
  /** Original text of the clause. */
  raw: string;
  /** Offset of the clause in its sentence. */
  start: number;
  /** Lower-cased, contractions expanded, lead-ins stripped. */
  norm: string;
}

const CLAUSE_BREAK =
  /\s*(?:[,;:()\u2014\u2013]|\s-\s|\.{3}|…)\s*|\s+(?=(?:and|but|so|because|since|though|although|while|whereas|plus|which|as well as)\s)/g;

/** Lower case, one apostrophe, contractions expanded. */
function expand(raw: string): string {
  let s = raw.toLowerCase().replace(/[‘’`´]/g, "'");
  for (const [re, to] of CONTRACTIONS) s = s.replace(re, to);
  return s;
}

/** {@link expand}, then lead-ins and a leading time phrase stripped, so a clause starts with its subject. */
function normalise(raw: string): string {
  let s = expand(raw).replace(/^[\s"'“”«»([{*_~>-]+/, '');
  let prev = '';
  while (prev !== s) {
    prev = s;
    s = s.replace(LEAD_IN, '').replace(LEAD_TIME, '').trimStart();
  }
  return s.replace(/[\s.!?"'”»)\]]+$/u, '').replace(/\s+/g, ' ');
}

function clausesOf(sentence: string): Clause[] {
  const out: Clause[] = [];
  let last = 0;
  const push = (end: number) => {
    const raw = sentence.slice(last, end);
    if (raw.trim()) out.push({ raw, start: last, norm: normalise(raw) });
  };
  for (const m of sentence.matchAll(CLAUSE_BREAK)) {
    push(m.index);
    last = m.index + m[0].length;
  }
  push(sentence.length);
  return out;
}

function sentencesOf(text: string): string[] {
  const prepared = text
    .normalize('NFKC')
    .slice(0, PATTERN_GATE_MAX_CHARS)
    .replace(/```[\s\S]*?(?:```|$)/g, '\n') // code blocks are not statements
    .replace(/https?:\/\/\S+/g, 'link')
    .replace(/"[^"\n]{1,300}"|“[^”\n]{1,300}”/g, '"…"') // quoted titles and speech
    .replace(ABBREVIATIONS, `$1${DOT}`);
  return prepared
    .split('\n')
    .filter((line) => !/^\s*>/.test(line)) // quoted replies
    .flatMap((line) => line.split(/(?<=[.!?…])\s+/))
    .map((s) => s.replaceAll(DOT, '.').trim())
    .filter((s) => s.length > 0 && s.length <= MAX_SENTENCE_CHARS);
}

/** "my sister Ana", "my husband's name is Tom", "my great-aunt, who was born …". */
const RELATION_HEAD = new RegExp(`\\b(?:my|our) ${REL}\\b`, 'giu');
const NAMED_AFTER =
  /^(?:'s name is|,? (?:named|called)|(?: is| was)? called| is| was|,)? +(?:(?:Dr|Mr|Mrs|Ms|Prof)\.? )?(\p{Lu}[\p{Ll}'’-]+)/u;
const WHO_AFTER = /^,? who (?:is|was|lives|lived|works|worked|was born|grew up)\b/i;

function namedRelation(span: string): string | null {
  for (const m of span.matchAll(RELATION_HEAD)) {
    const after = span.slice(m.index + m[0].length);
    const named = NAMED_AFTER.exec(after);
    if (named && !NOT_NAMES.has(named[1]!)) return `${m[0]}${after.slice(0, named[0].length)}`;
    if (WHO_AFTER.test(after)) return m[0];
  }
  return null;
}

/**
 * A reminder the owner asks for ("remind me to call mum on Friday", "can you remind me to …",
 * "don't let me forget the rent on the 1st"). Read over every clause up to someone else's words,
 * because a request phrased as a question is still a request; "remind me what …" and "remind me
 * how …" ask for information and are not reminders.
 */
function reminderIn(clauses: readonly Clause[], sentence: string): Hit | null {
  for (const clause of clauses) {
    if (REPORTED.test(clause.norm)) return null;
    const m = REMINDER.exec(clause.norm);
    if (!m || REMINDER_HEDGE.test(clause.norm)) continue;
    if (REMINDER_NEEDS_TIME.test(m[0]) && !WHEN.test(sentence)) continue;
    return { category: 'plan', pattern: 'reminder', excerpt: clause.raw.trim() };
  }
  return null;
}

interface Hit {
  category: BeliefCategory;
  pattern: string;
  excerpt: string;
}

function judgeSentence(sentence: string): Hit[] {
  const clauses = clausesOf(sentence);
  if (clauses.length === 0 || NOT_REAL.test(clauses[0]!.norm)) return [];
  // The statement part of the sentence: up to the first question or someone else's words.
  let stop = clauses.length;
  const isQuestion = /\?[\s"')\]]*$/u.test(sentence);
  for (let i = 0; i < clauses.length; i++) {
    const c = clauses[i]!;
    // Mid-statement "who …" and "which …" are relative clauses, not questions.
    if (INTERROGATIVE.test(c.norm) || (WH.test(c.norm) && (isQuestion || i === 0))) {
      stop = i;
      break;
    }
    if (REPORTED.test(c.norm)) {
      stop = i;
      break;
    }
  }
  if (isQuestion && stop === clauses.length) stop = clauses.length - 1;
  const stated = clauses.slice(0, stop);
  if (stated.length === 0) {
    const reminder = reminderIn(clauses, expand(sentence).replace(/\s+/g, ' ').trim());
    return reminder ? [reminder] : [];
  }
  const span = sentence.slice(0, stated.at(-1)!.start + stated.at(-1)!.raw.length);
  const lowerSpan = expand(span).replace(/\s+/g, ' ').trim();
  const hits: Hit[] = [];

  if (
    FIRST_PERSON.test(lowerSpan) &&
    !HEDGE.test(lowerSpan) &&
    ((CORRECTION_MARKER.test(lowerSpan) && NOT_X_AT_END.test(lowerSpan)) ||
      GOT_IT_WRONG.test(lowerSpan))
  ) {
    hits.push({ category: 'correction', pattern: 'correction', excerpt: span });
  }
  const named = namedRelation(span);
  if (named) hits.push({ category: 'relationship', pattern: 'named relation', excerpt: named });

  for (const clause of stated) {
    if (HEDGE.test(clause.norm)) continue;
    for (const [category, name, re, check] of CLAUSE_PATTERNS) {
      const m = re.exec(clause.norm);
      if (m && (!check || check(m, lowerSpan))) {
        hits.push({ category, pattern: name, excerpt: clause.raw.trim() });
        break;
      }
    }
  }
  const reminder = reminderIn(clauses, expand(sentence).replace(/\s+/g, ' ').trim());
  if (reminder) hits.push(reminder);
  return hits;
}

const CAPTURE_CATEGORY: Readonly<Record<string, BeliefCategory>> = {
  preference: 'preference',
  relationship: 'relationship',
  profile: 'identity',
  constraint: 'identity',
  setting: 'preference',
  goal: 'plan',
  project: 'plan',
};

function fromCapture(c: Capture): Hit {
  return {
    category: CAPTURE_CATEGORY[c.kind] ?? 'other',
    pattern: `explicit "${c.trigger.replaceAll('_', ' ')}"`,
    excerpt: c.statement,
  };
}

function excerptOf(text: string, max = 100): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/**
 * The deterministic belief gate: calibrated English patterns for preferences, corrections,
 * decisions, identity statements, relationships and plans, said by the owner about themself, and
 * for reminder requests, dated appointments and dated past events in the owner's own life.
 * An explicit "remember that …" (see {@link captureExplicit}) is always a yes.
 *
 * It never answers `undecided` and never throws for any string; it reads at most
 * {@link PATTERN_GATE_MAX_CHARS} characters of a turn. Precision and recall on the labelled set
 * are printed by its test.
 */
export class PatternGate implements BeliefGate {
  readonly name = 'pattern' as const;

  /**
   * @param text - the owner's turn, screened by {@link screenTurn}.
   * @param options.signal - when already aborted, the judgement is refused.
   * @throws KeelError `CANCELLED` when `options.signal` is already aborted.
   */
  async judge(text: string, options: { signal?: AbortSignal } = {}): Promise<GateVerdict> {
    throwIfCancelled(options.signal);
    return judgeByPattern(text);
  }
}

/** The pattern gate's judgement, synchronously (see {@link PatternGate}). */
export function judgeByPattern(text: string): GateVerdict {
  if (typeof text !== 'string' || !/[\p{L}\p{N}]/u.test(text)) {
    return { decision: 'no', reason: 'empty turn' };
  }
  const hits: Hit[] = [];
  const capture = captureExplicit(text.slice(0, PATTERN_GATE_MAX_CHARS));
  if (capture) hits.push(fromCapture(capture));
  for (const sentence of sentencesOf(text)) hits.push(...judgeSentence(sentence));
  if (hits.length === 0) {
    return { decision: 'no', reason: 'no pattern for a durable fact about the owner matched' };
  }
  hits.sort((a, b) => PRIORITY.indexOf(a.category) - PRIORITY.indexOf(b.category));
  const best = hits[0]!;
  return {
    decision: 'yes',
    category: best.category,
    reason: `${best.category} (${best.pattern}): "${excerptOf(best.excerpt)}"`,
  };
}
