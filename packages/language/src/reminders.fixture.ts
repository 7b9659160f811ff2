/**
 * Cases for {@link parseReminderRequest}: requests to be reminded and lines that are not, said on
 * Tuesday 2026-12-08 at 14:02 in Europe/Paris. They were written before the reader, then split
 * once (by position: even → development, odd → held out); the reader was tuned on the development
 * half only. `reminders.test.ts` asserts the development half whole and the held-out half at the
 * rate it reached.
 *
 * `due` is the owner-local time expected (`yyyy-MM-dd HH:mm`); `what` what to be reminded of;
 * `request: false` a line that asks for no reminder; `due: null` a request whose time cannot be
 * read (keel says what it could not read).
 *
 * Used only by tests.
 *
 * @module
 */

/** One case. */
export type ReminderCase =
  | { text: string; request: false }
  | { text: string; request: true; what: string; due: string | null };

/** When every case is said: Tuesday 2026-12-08 14:02 in {@link CASES_TZ}. */
export const CASES_NOW = '2026-12-08T14:02';
/** The owner's zone of the cases. */
export const CASES_TZ = 'Europe/Paris';

/** Every case, in the order written. */
export const REMINDER_CASES: readonly ReminderCase[] = [
  {
    text: 'remind me at five to call the bank',
    request: true,
    what: 'call the bank',
    due: '2026-12-08 17:00',
  },
  {
    text: 'remind me Friday at 10 to send the invoice',
    request: true,
    what: 'send the invoice',
    due: '2026-12-11 10:00',
  },
  {
    text: 'in two hours remind me to stretch',
    request: true,
    what: 'stretch',
    due: '2026-12-08 16:02',
  },
  {
    text: 'Remind me tomorrow morning to water the plants',
    request: true,
    what: 'water the plants',
    due: '2026-12-09 09:00',
  },
  {
    text: 'can you remind me to take my pills at 9pm',
    request: true,
    what: 'take my pills',
    due: '2026-12-08 21:00',
  },
  {
    text: 'please remind me in 30 minutes to check the oven',
    request: true,
    what: 'check the oven',
    due: '2026-12-08 14:32',
  },
  {
    text: 'set a reminder for tomorrow at 8am: dentist',
    request: true,
    what: 'dentist',
    due: '2026-12-09 08:00',
  },
  {
    text: "don't let me forget to buy milk at 6pm",
    request: true,
    what: 'buy milk',
    due: '2026-12-08 18:00',
  },
  {
    text: 'remind me on Monday to renew the passport',
    request: true,
    what: 'renew the passport',
    due: '2026-12-14 09:00',
  },
  {
    text: 'hey keel, remind me in 10 minutes to take the laundry out',
    request: true,
    what: 'take the laundry out',
    due: '2026-12-08 14:12',
  },
  {
    text: 'Remind me to email Sarah tomorrow at 3pm',
    request: true,
    what: 'email Sarah',
    due: '2026-12-09 15:00',
  },
  {
    text: 'remind me next Tuesday at noon about the rent',
    request: true,
    what: 'the rent',
    due: '2026-12-15 12:00',
  },
  {
    text: 'set a reminder to call mom at 7',
    request: true,
    what: 'call mom',
    due: '2026-12-08 19:00',
  },
  {
    text: 'remind me at 8:30 tomorrow to leave for the airport',
    request: true,
    what: 'leave for the airport',
    due: '2026-12-09 08:30',
  },
  {
    text: 'remind me in an hour to move the car',
    request: true,
    what: 'move the car',
    due: '2026-12-08 15:02',
  },
  {
    text: 'in 2 days remind me to follow up with the landlord',
    request: true,
    what: 'follow up with the landlord',
    due: '2026-12-10 14:02',
  },
  {
    text: 'remind me on December 24 at 6pm to call grandma',
    request: true,
    what: 'call grandma',
    due: '2026-12-24 18:00',
  },
  {
    text: 'Could you remind me to pay the electricity bill on Thursday?',
    request: true,
    what: 'pay the electricity bill',
    due: '2026-12-10 09:00',
  },
  {
    text: 'set a reminder for 7:45 tomorrow to catch the train',
    request: true,
    what: 'catch the train',
    due: '2026-12-09 07:45',
  },
  {
    text: 'remind me this evening to call Dad',
    request: true,
    what: 'call Dad',
    due: '2026-12-08 19:00',
  },
  { text: 'I have a meeting at five', request: false },
  { text: 'did you remind me to call the bank?', request: false },
  { text: 'what reminders do I have?', request: false },
  { text: 'remind me what we talked about yesterday', request: false },
  { text: "remind me, what's my sister's name?", request: false },
  { text: 'my mom always reminds me to call at five', request: false },
  { text: 'the dentist reminded me about the appointment on Friday', request: false },
  { text: 'remember that my flight is on Friday at 10', request: false },
  { text: 'I need to call the bank at five', request: false },
  { text: 'can you remind me to call the bank?', request: true, what: 'call the bank', due: null },
  {
    text: 'remind me to call the plumber sometime soon',
    request: true,
    what: 'call the plumber sometime soon',
    due: null,
  },
  { text: 'how do reminders work?', request: false },
  { text: 'I set a reminder for 5pm already', request: false },
  {
    text: 'remind me about the parcel pickup in 45 minutes',
    request: true,
    what: 'the parcel pickup',
    due: '2026-12-08 14:47',
  },
  {
    text: 'Set a reminder: pay rent on the 1st',
    request: true,
    what: 'pay rent',
    due: '2027-01-01 09:00',
  },
  {
    text: 'yo remind me tmrw at 9 to call the garage',
    request: true,
    what: 'call the garage',
    due: '2026-12-09 09:00',
  },
  {
    text: 'please set a reminder for Sunday 6pm to prep the week',
    request: true,
    what: 'prep the week',
    due: '2026-12-13 18:00',
  },
  {
    text: 'keel, remind me in 3 hours to check on the bread',
    request: true,
    what: 'check on the bread',
    due: '2026-12-08 17:02',
  },
  { text: "I'll remind you tomorrow", request: false },
  {
    text: 'Remind me at 5pm tomorrow that the plumber is coming',
    request: true,
    what: 'the plumber is coming',
    due: '2026-12-09 17:00',
  },
  {
    text: 'remind me next week to book the car service',
    request: true,
    what: 'book the car service',
    due: '2026-12-15 09:00',
  },
  { text: 'she reminded me twice yesterday to send it', request: false },
];

/** The development half: the cases the reader was tuned on. */
export const DEV_CASES = REMINDER_CASES.filter((_, i) => i % 2 === 0);
/** The held-out half: never tuned on. */
export const HELD_OUT_CASES = REMINDER_CASES.filter((_, i) => i % 2 === 1);
