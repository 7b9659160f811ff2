/**
 * Fragments: how owners give a slot a new value in chat without a sentence around it — a value
 * and a word that says it holds now ("Nairobi now.", "oh and GP — Dr. Nakamura these days"), a
 * new value under its slot's name ("nouveau numéro : 07 58 20 16 44", "new email: …"), or a
 * change of a slot said first and its value after ("mudei de número, agora é (21) 98207-3316",
 * "changed my number, it's 0612 345 678 now").
 *
 * A fragment names at most the slot's name, never its kind: the caller matches the name against
 * the slots the owner holds, or, with no name, puts the value in the slot the same line closed.
 *
 * @module
 */
import { namesPresent, splitTimePhrase } from '@keel/language';

/** A fragment: the slot's name as said (null when it names none) and the new value. */
export interface Fragment {
  /** The slot's name in the owner's words ("GP", "numéro", "number"), or null. */
  name: string | null;
  value: string;
  /**
   * Set when the name is only a word before "is" ("home is Berlin now"): the value goes to a slot
   * the owner holds by that name, never to a new one ("the weather is nice now" names no slot).
   */
  heldOnly?: true;
  /** The time phrase said with it ("new barber since last tuesday — Emeka"), as said. */
  when?: string;
}

/** Openers a chat line starts with before its fragment ("oh and", "fyi", "update:"). */
const OPENERS =
  /^(?:(?:oh|and|also|btw|by the way|fyi|ok|okay|so|update|no|but|seriously|honestly|anyway|actually|y|et|und|e|ah|bueno|alors|também|aliás)[\s,:;!—–-]+)+/iu;

/** Where a fragment may start inside a sentence: after a clause break, an emoji, or "but". */
const FRAGMENT_START =
  /[,;:!?…—–]\s+|\s*\p{Extended_Pictographic}+\s*|\s(?:but|pero|mais|aber|mas)\s+/gu;

/** Words that say a value holds now, at the fragment's end. */
const NOW =
  '(?:now|these days|nowadays|at the moment|currently|ahora|ahora mismo|actualmente|maintenant|désormais|en ce moment|jetzt|inzwischen|mittlerweile|aktuell|agora|atualmente)';

/** "[name —] value now": a value of at most five words that names something, then {@link NOW}. */
const VALUE_NOW = new RegExp(
  `^(?:(?<name>[\\p{L}][\\p{L}\\p{M}' .-]{0,30}?)\\s*[—–:]\\s*)?(?<value>[^,;]{1,60}?)\\s+${NOW}$`,
  'iu',
);

/** "new <name>: value" (and "<name> novo: value", "nuevo <name>: value", "I got a new <name>: value"). */
const NEW_NAMED =
  /^(?:(?:I|we)\s+(?:have\s+|['’]ve\s+)?(?:got|have)\s+a\s+|got\s+a\s+)?(?:(?:my|mi|mon|ma|mein|meine|meu|minha)\s+)?(?:(?:new|nuevo|nueva|nouveau|nouvel|nouvelle|neue|neuer|neues|novo|nova)\s+(?<a>[\p{L}\p{M}' -]{2,30}?)|(?<b>[\p{L}\p{M}' -]{2,30}?)\s+(?:nuevo|nueva|novo|nova))\s*[:=—–-]\s*(?<value>.+)$/iu;

/** "changed <name>, now it's value" in each language capture reads. */
const CHANGED_NAMED = new RegExp(
  `^(?:(?:I|we)\\s+)?(?:(?:have|['’]ve)\\s+)?(?:changed|switched|got a new|cambié de|cambie de|me cambié de|j['’]ai changé de|changé de|hab(?:e)? (?:meine|mein|die|den|das)|mudei de|troquei de|troquei o|troquei a)\\s+(?:my\\s+|mi\\s+|mon\\s+|ma\\s+)?(?<name>[\\p{L}\\p{M}' -]{2,30}?)(?:\\s+gewechselt)?\\s*[,;—–:-]\\s*(?:(?:and\\s+)?(?:now|it['’]s|it is|the new one is|ahora|es|el nuevo es|maintenant|c['’]est|le nouveau c['’]est|jetzt|ist|die neue ist|agora|é|o novo é)\\s*)+(?<value>.+?)(?:\\s+${NOW})?$`,
  'iu',
);

/**
 * A value said with no slot's name must be a name or a number on its own ("Nairobi", "Rio de
 * Janeiro", "Dr. Nakamura", "0612 345 678"), not a clause ("I'm in Cork", "it's on the 3rd").
 */
const NAME_LIKE =
  /^(?:\p{Lu}[\p{L}\p{M}'’.-]*|\(?\d[\d()+ .-]*)(?:\s+(?:\p{Lu}[\p{L}\p{M}'’.-]*|de|da|do|del|dos|das|von|van|der|la|le|\d[\d()+ .-]*)){0,3}$/u;

/** "my <name> changed, it's value (now)" ("my number changed, it's 07700 900982 now"). */
const NAME_CHANGED_IS = new RegExp(
  `^(?:my|mi|mon|ma|mein|meine|meu|minha|o meu|a minha)\\s+(?<name>[\\p{L}\\p{M}' -]{2,30}?)\\s+(?:changed|has changed|cambió|ha cambiado|a changé|hat sich geändert|mudou)\\s*[,;:—–-]\\s*(?:it['’]s|it is|the new one is|now|ahora es|es|c['’]est|maintenant c['’]est|jetzt ist|ist|agora é|é)\\s+(?<value>[^,;]+?)(?:\\s+${NOW})?(?:\\s*[,;].*)?$`,
  'iu',
);

/** "my <name> changed to value" ("my email changed to …", "mi número cambió a …"). */
const NAME_CHANGED_TO =
  /^(?:my|mi|mon|ma|mein|meine|meu|minha|o meu|a minha)\s+(?<name>[\p{L}\p{M}' -]{2,30}?)\s+(?:changed|has changed|is changing|cambió|ha cambiado|a changé|hat sich geändert|mudou)\s+(?:to|a|en|pour|zu|para)\s+(?<value>.+)$/iu;

/** "<name> is <value> now" ("home is Berlin now"): a slot's name and its new value, said bare. */
const NAME_IS_NOW = new RegExp(
  `^(?<name>\\p{L}[\\p{L}\\p{M}' -]{1,20}?)\\s+(?:is|es|est|ist|é)\\s+(?<value>[^,;]{1,60}?)\\s+${NOW}$`,
  'iu',
);

/**
 * "… a new <name>, <value>" inside a sentence ("started with a new therapist, dr. anya
 * kowalczyk", "war bei meiner neuen Zahnärztin, Dr. Pichler"): the name after "new" in each
 * language, then a comma, a colon or a dash, then the value up to the clause's end.
 */
const NEW_APPOSED =
  /(?:^|\s)(?:new|nuevo|nueva|nouveau|nouvel|nouvelle|neue|neuen|neuer|neues|neuem|novo|nova)\s+(?<name>[\p{L}\p{M}'’-]{2,30})\s*(?:[,:]|\s[—–-])\s*(?<value>[^,;:—–]+)/iu;

/**
 * A value that names someone or something: a capitalised word, a number, or a title before a
 * name, which a chat may write in lower case ("dr. anya kowalczyk", "dra. fuertes").
 */
const NAMED_VALUE =
  /^(?:\p{Lu}|\d|(?:[Dd](?:r|ra|octor|octora|octeur)|[Pp]rof|[Mm](?:r|rs|s|me)|[Ss]ra?|[Ff]rau|[Hh]err)\.?\s+\p{L})/u;

/** What a value may not be: a word that only points ("it", "that", "there"). */
const POINTER = /^(?:it|that|this|there|here|eso|esto|ça|cela|das|es|isso|isto)$/iu;

/**
 * The fragment a sentence is, or null: {@link VALUE_NOW}, {@link NEW_NAMED} or
 * {@link CHANGED_NAMED}. A value with no slot's name must be a name or a number on its own
 * ({@link NAME_LIKE}: "Nairobi now", not "tired now" nor "I'm in Cork now").
 *
 * @param sentence - one sentence of the owner's line, its closing punctuation left on or off.
 */
export function readFragment(sentence: string): Fragment | null {
  if (typeof sentence !== 'string') return null;
  const s = sentence
    .trim()
    .replace(/[.!…\s]+$/u, '')
    .replace(OPENERS, '');
  if (!s || s.length > 200) return null;
  // A time phrase that names a day is no part of the value ("new barber since last tuesday —
  // Emeka"); one of the present only ("now") is the fragment's own word.
  const timed = splitTimePhrase(s);
  if (timed && !namesPresent(timed.phrase)) {
    const found = readUntimed(timed.rest);
    if (found) return { ...found, when: timed.phrase };
  }
  const found = readUntimed(s);
  if (found) return found;
  // A fragment after a lead the chat put first ("new phone who dis 😂 no but seriously my number
  // changed, it's … now"): read from each later start, a value with its slot's name only.
  for (const m of s.matchAll(FRAGMENT_START)) {
    const rest = s.slice(m.index + m[0].length).replace(OPENERS, '');
    const later = rest ? readUntimed(rest) : null;
    if (later?.name && !later.heldOnly) return later;
  }
  return null;
}

/** {@link readFragment} of a sentence its time phrase was read off (or had none). */
function readUntimed(s: string): Fragment | null {
  const changed =
    CHANGED_NAMED.exec(s)?.groups ??
    NAME_CHANGED_TO.exec(s)?.groups ??
    NAME_CHANGED_IS.exec(s)?.groups;
  if (changed?.name && changed.value) return fragment(changed.name, changed.value);
  const named = NEW_NAMED.exec(s)?.groups;
  const newName = named?.a ?? named?.b;
  if (newName && named?.value) return fragment(newName, named.value);
  const bare = NAME_IS_NOW.exec(s)?.groups;
  if (bare?.name && bare.value && !/^(?:it|this|that|he|she|they|i|we)$/iu.test(bare.name.trim())) {
    const f = fragment(bare.name, bare.value);
    return f ? { ...f, heldOnly: true } : null;
  }
  const now = VALUE_NOW.exec(s)?.groups;
  if (now?.value) {
    const value = now.value.trim();
    if (value.split(/\s+/u).length > 5) return null;
    if (!now.name && !NAME_LIKE.test(value)) return null;
    return fragment(now.name ?? null, value);
  }
  const apposed = NEW_APPOSED.exec(s)?.groups;
  if (apposed?.name && apposed.value && NAMED_VALUE.test(apposed.value.trim())) {
    return fragment(apposed.name, apposed.value);
  }
  return null;
}

function fragment(name: string | null, value: string): Fragment | null {
  const v = value.trim().replace(/^(?:the|le|la|el|o|a|der|die|das)\s+(?=\p{N}|\()/iu, '');
  if (!v || POINTER.test(v)) return null;
  const n = name?.trim() ?? null;
  return { name: n && n.length > 0 ? n : null, value: v };
}
