/**
 * Numbers said in English words, one to twelve: an hour on the clock ("at five") or a count of
 * days, weeks or months ("the past two weeks"). One table for every reader of dates and times.
 *
 * @module
 */

/** One to twelve in English words, by word (lower case). */
export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};
