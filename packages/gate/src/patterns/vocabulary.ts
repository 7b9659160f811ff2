/**
 * The pattern gate's vocabulary: the English word lists its clause table is written in (months,
 * seasons, weekdays, relations, jobs, languages, health terms, plan verbs, appointments), and the
 * time expressions built from them. Each list is the source text of a regular-expression
 * alternation (lower case, the way a normalised clause is written), so a pattern can embed it.
 *
 * `capture.ts` shares {@link RELATION_WORD}: "my X is Y" is a relationship when X is one of these.
 *
 * @module
 */
/** Month names. */
export const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december';
/** Month names without "may", which is more often the verb. */
const MONTHS_NOT_MAY =
  'january|february|march|april|june|july|august|september|october|november|december';
/** Season names. */
export const SEASONS = 'spring|summer|autumn|fall|winter';

/** A time expression that puts a plan beyond the current conversation. */
export const TIME = new RegExp(
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
  'parents?',
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
  'teacher',
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
/** A relation with its modifiers: "sister", "older sister", "step-dad". */
export const REL = `(?:${RELATION_MODS}(?:${RELATIONS}))`;
/**
 * One word that names a relation ({@link REL}, lower case, e.g. "dentist", "step-dad"): explicit
 * capture files "my X is Y" as a relationship when X ends in one.
 */
export const RELATION_WORD = new RegExp(`^${REL}$`);

/**
 * Diets the owner may say they follow ("I'm vegetarian", "soy vegano", "je suis végétarienne",
 * "ich bin Veganerin", "sou vegetariana"), as a regular-expression source matched whole-word:
 * explicit capture files them as profile/diet.
 */
export const DIETS =
  'vegetarian|vegan|pescatarian|pescetarian|flexitarian|teetotal|sober|kosher|halal|keto|paleo|gluten[- ]free|dairy[- ]free|' +
  'vegetarian[oa]s?|vegan[oa]s?|pescetarian[oa]|végétarien(?:ne)?|végétalien(?:ne)?|végan(?:e)?|vegane?r(?:in)?|vegetarier(?:in)?|' +
  'vegetariano|vegetariana|vegano|vegana|flexitarien(?:ne)?|flexitarian[oa]|flexitarier(?:in)?|pescatarien(?:ne)?|pescetarian[oa]|pescetarier(?:in)?';

/** Capitalised words that follow "my sister" without being a name. */
export const NOT_NAMES = new Set(
  (
    'I A An The This That These Those It He She They We You And But So Or Also Oh By Because ' +
    'Can Could Do Does Did Is Are Was Were Will Would What When Where Why How Which Who Just Not ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May ' +
    'June July August September October November December Christmas Easter'
  ).split(' '),
);

/** Occupations, for "I am a …" (the last two catch "-ist" and "-ian" words). */
export const JOBS = [
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

/** Languages, for "I speak …" and "I am learning …". */
export const LANGUAGES =
  'english|spanish|french|german|italian|portuguese|dutch|swedish|norwegian|danish|finnish|' +
  'icelandic|polish|czech|slovak|hungarian|romanian|bulgarian|greek|turkish|russian|ukrainian|' +
  'arabic|hebrew|persian|farsi|hindi|urdu|bengali|punjabi|tamil|telugu|mandarin|cantonese|' +
  'chinese|japanese|korean|vietnamese|thai|indonesian|malay|tagalog|swahili|yoruba|amharic|' +
  'catalan|basque|welsh|irish|gaelic|latin|sign language|asl|bsl';

/** Health conditions, diets aside, for "I have …" and "I was diagnosed with …". */
export const HEALTH =
  'diabetes|asthma|adhd|add|autism|celiac disease|coeliac disease|epilepsy|migraines?|arthritis|' +
  "anxiety|depression|ibs|crohn'?s(?: disease)?|colitis|lupus|ms|multiple sclerosis|" +
  'high blood pressure|hypertension|low blood pressure|(?:back|knee|hip|neck) (?:pain|problems|issues)|' +
  '(?:bad|weak|dodgy|bad) (?:back|knee|knees|hip|heart)|heart condition|heart disease|cancer|' +
  'long covid|insomnia|sleep apnea|sleep apnoea|tinnitus|(?:peanut|nut|tree nut|gluten|dairy|shellfish|egg|soy|pollen|cat|dog|bee) allerg(?:y|ies)|' +
  'allerg(?:y|ies)|eczema|psoriasis|endometriosis|pcos|hypothyroidism|hyperthyroidism|thyroid|' +
  'chronic [a-z]+|ptsd|ocd|bipolar(?: disorder)?|dyslexia|fibromyalgia|glaucoma|hearing loss';

/** Base verbs for life plans that do not need a date to count as durable. */
export const STRONG_PLAN =
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
export const WEAK_PLAN =
  'travel|visit|fly|go to|head to|spend|attend|host|throw|celebrate|study|' +
  'take (?:a|my|our) (?:trip|holiday|vacation|break|sabbatical|course|class)';

/** -ing forms of life plans for "thinking of …" and "considering …". */
export const CONSIDERED_PLAN =
  'moving|relocating|emigrating|selling|buying (?:a|an|our|my) (?:[\\w-]+ )?(?:house|home|flat|apartment|car|place|property)|' +
  'quitting|switching|applying|starting|' +
  'getting (?:married|divorced|engaged|a (?:dog|cat|puppy|kitten|new job|divorce|degree|mortgage))|' +
  'adopting|learning|changing (?:jobs|careers)|retiring|going back|submitting|majoring|becoming|' +
  'taking up|upgrading|enrolling|studying|pursuing|renting out|opening|launching|leaving my|' +
  'going (?:vegan|vegetarian|freelance|part[- ]time)';

/** Adverbs that may stand between a subject and its verb ("I really do love …"), with their space. */
export const ADV =
  '(?:(?:really|absolutely|truly|just|totally|honestly|genuinely|kind of|kinda|do|still|also|' +
  'always|actually|definitely|seriously|now|recently|finally|already|even|usually|generally|' +
  'personally|mostly|pretty much|both|all|currently|officially)\\s+)*';

/** Weekday names, singular or plural. */
export const WEEKDAYS = '(?:mon|tues|wednes|thurs|fri|satur|sun)days?';

/**
 * When an appointment, deadline or plan is: a day, date or clock time ahead ("tomorrow at 9",
 * "next Tuesday", "on the 1st"), or any {@link TIME}.
 */
export const WHEN = new RegExp(
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
/** {@link PAST_WHEN} anywhere in a clause. */
export const PAST_WHEN_RE = new RegExp(PAST_WHEN);
/** A statement that opens with its date ("Yesterday, I went to the dentist."). */
export const PAST_WHEN_FIRST = new RegExp(`^(?:[\\w']+ ){0,2}?${PAST_WHEN}`);

/** Dated things in the owner's calendar. */
export const APPOINTMENTS =
  '(?:appointment|appt|meeting|interview|flight|train|exam|exams|test|deadline|surgery|operation|' +
  'check-?up|scan|consultation|session|class|lesson|shift|hearing|court date|viva|presentation|' +
  'review|recital|concert|gig|match|race|game|wedding|party|date|trip|booking|reservation|' +
  'rent|bill|payment|vaccination|jab|shot|physio|therapy|treatment|visit|dinner|lunch|birthday|' +
  'anniversary|due date|move|moving day|holiday|vacation)';
/** Words that may stand between "a" and the appointment, but not a preposition or a possessive. */
export const APPOINTMENT_MODS =
  "(?:(?!(?:about|for|with|on|of|in|to|from|at|my|your|our|the|what|how|that|this)\\b)[\\w'-]+ ){0,3}?";
