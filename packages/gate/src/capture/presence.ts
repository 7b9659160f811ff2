/**
 * Presence: the owner saying where they are now, as a chat says where it works, trains or
 * studies ("i'm at Monzo now", "estoy en Cabify", "je suis chez sopra steria", "ich bin bei der
 * DKB", "tô no Nubank"). On its own it names no slot (an office, a gym, a town); the caller
 * places it in the slot the same line names or mentions.
 *
 * @module
 */
import { namesPresent, splitTimePhrase } from '@keel/language';

/** What a presence statement says: where, and the time phrase said with it. */
export interface Presence {
  /** Where the owner is, as said ("Monzo", "sopra steria", "der DKB" → "DKB"). */
  place: string;
  /** The time phrase said with it ("since yesterday", "seit dem 1. Mai"), as said. */
  when?: string;
}

/** Words that say a presence holds now, around the place. */
const NOW = '(?:now|these days|nowadays|ahora|ya|maintenant|désormais|jetzt|inzwischen|agora|já)';

/**
 * "I'm at X", "we're with X", "estoy en X", "je suis chez X", "ich bin bei X", "estou no X" (and a
 * chat's "tô"), at the start of a clause: the owner, a verb of being, a preposition of place.
 */
const PRESENT_AT = new RegExp(
  `(?:^|[,;.!?\\p{Extended_Pictographic}]\\s*|\\s(?:and|so|but|y|pero|et|mais|donc|und|aber|also|e|mas|então)\\s+)(?:${NOW}\\s+)?(?:I['’]m|I am|we['’]re|we are|estoy|estamos|je suis|on est|ich bin|wir sind|bin|estou|estamos|tô|to)\\s+(?:${NOW}\\s+)?(?:at|with|en|con|chez|bei der|bei dem|beim|bei|no|na|em)\\s+(?<place>[^,;.!?]+)`,
  'iu',
);

/** Where the place ends: a clause word, or a word of the present after it. */
const PLACE_END = new RegExp(
  `\\s+(?:${NOW}|and|but|since|so|y|pero|desde|et|mais|depuis|und|aber|seit|e|mas|desde)(?![\\p{L}]).*$`,
  'iu',
);

/** The article a place may carry ("der DKB", "la Fnac", "o Nubank"). */
const ARTICLE = /^(?:the|el|la|le|l['’]|der|die|das|o|a)\s+/iu;

/**
 * The owner's presence said in `text` ({@link PRESENT_AT}), its time phrase read off, or null.
 * A place must name something: a capital, a digit, or a word after "chez", "bei", "en", "no" …
 * in a chat's lower case is taken as said.
 */
export function readPresence(text: string): Presence | null {
  if (typeof text !== 'string' || text.length > 2000) return null;
  const found = splitTimePhrase(text);
  const timed = found && !namesPresent(found.phrase) ? found : null;
  const m = PRESENT_AT.exec(timed?.rest ?? text) ?? (timed ? PRESENT_AT.exec(text) : null);
  const raw = m?.groups?.place;
  if (!raw) return null;
  const place = raw.replace(PLACE_END, '').replace(ARTICLE, '').trim();
  if (!/[\p{L}\p{N}]/u.test(place) || place.split(/\s+/u).length > 4) return null;
  // "I'm at home", "estoy en casa", "je suis chez moi" say nothing of where the owner belongs.
  if (
    /^(?:home|work|the office|casa|moi|nous|mir|uns|home office|zuhause|casa dela)$/iu.test(place)
  ) {
    return null;
  }
  return timed && !place.includes(timed.phrase) ? { place, when: timed.phrase } : { place };
}
