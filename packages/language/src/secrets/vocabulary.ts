/**
 * The words of the secret scan: credential nouns per language (what a sentence can be *about*),
 * the words that join a noun to its value ("is", ":", "es", "est", "ist", "é", "是" …), the words
 * that may stand between them ("for the bank", "del banco", "du wifi"), and the words that show a
 * sentence describes a credential rather than stating it ("is too short", "est trop court").
 *
 * Languages: English, Spanish, French, German, Portuguese and Italian in depth; Dutch, the
 * Nordic languages, Polish, Czech, Romanian, Hungarian, Turkish, Indonesian, Vietnamese, Russian,
 * Greek, Arabic, Hebrew, Hindi, Bengali, Thai, Chinese, Japanese and Korean for their password and
 * PIN words.
 *
 * Every pattern here is a regex *source* with bounded repetition only: the scan stays linear in
 * the length of the text.
 *
 * @module
 */
import type { SecretKind } from './kinds.js';

/**
 * What the value after a credential noun must look like.
 *
 * - `word` — a password: any word that is not a description; a few more words may follow.
 * - `phrase` — a passphrase or a security answer: like `word`, up to a whole clause.
 * - `token` — an API key or token named as such: one word that is not a description.
 * - `key` — after a weak noun ("key", "token", "secret"): one word that looks random.
 * - `pin` — digits, or (after a strong PIN word) any word that is not a description.
 * - `digits` — 4 to 12 digits only (after "code", lower-case "pin").
 * - `cvv` — 3 or 4 digits.
 * - `card` — 12 to 19 digits, grouped or not.
 * - `id` — an identity number: letters and digits with at least four digits.
 * - `codes` — recovery codes or a seed phrase: the rest of the sentence.
 * - `account` — an account number: an IBAN, or digits (with spaces or hyphens), six at least.
 */
export type ValueShape =
  | 'word'
  | 'phrase'
  | 'token'
  | 'key'
  | 'pin'
  | 'digits'
  | 'cvv'
  | 'card'
  | 'id'
  | 'codes'
  | 'account';

/** How a term sits in its text. */
export type Attachment =
  /** A word of a spaced script, bounded by non-letters on both sides. */
  | 'word'
  /** The last part of a compound word ("WLAN-Passwort", "Bankpasswort", "Türcode"). */
  | 'compound'
  /** A script written without spaces, or with particles attached (Chinese, Japanese, Korean, Thai, Hebrew, Arabic, Hindi, Bengali, Cyrillic, Greek). */
  | 'bare';

/** Credential nouns that share a kind and a value shape. */
export interface TermGroup {
  kind: SecretKind;
  value: ValueShape;
  /** Regex sources. Spaces match spaces, underscores or hyphens; `'` matches an optional apostrophe. */
  terms: readonly string[];
  /** Matched exactly as written (abbreviations: "PIN", "SSN", "NIR"); otherwise case-insensitive. */
  exactCase?: boolean;
  /** Only ":" or "=" may join it to a value ("pw: …", "mdp: …"). */
  symbolOnly?: boolean;
  /** Its modifiers follow it (Romance languages): "contraseña wifi es …", "mot de passe wifi est …". */
  headFirst?: boolean;
  /** A noun that is a credential only next to a credential-looking value ("code", "key"). */
  weak?: boolean;
  /** A credential only after a possessive ("mi clave es …", but not "la clave del éxito es …"). */
  possessive?: boolean;
  attach?: Attachment;
}

const EN: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: [
      'passwords?',
      'pass words?',
      'passwd',
      'pwd',
      'login password',
      'wi fi key',
      'wifi key',
      'wlan key',
      'wpa2? key',
      'network key',
    ],
  },
  { kind: 'password', value: 'word', terms: ['pw'], symbolOnly: true },
  { kind: 'password', value: 'key', terms: ['pass'], symbolOnly: true },
  // "the wifi pw is hunter22", "pass Sunset!99": a short word joined any way, next to a value
  // that looks like a password.
  { kind: 'password', value: 'key', terms: ['pw', 'pwd', 'pass'], weak: true },
  { kind: 'password', value: 'phrase', terms: ['pass ?phrases?'] },
  {
    kind: 'pin',
    value: 'pin',
    terms: [
      'pin codes?',
      'pin numbers?',
      'puk codes?',
      'puk numbers?',
      'passcodes?',
      'pass codes?',
      'unlock codes?',
      'screen ?lock codes?',
      'door codes?',
      'gate codes?',
      'alarm codes?',
      'garage codes?',
      'garage door codes?',
      'safe codes?',
      'lock codes?',
      'locker codes?',
      'keypad codes?',
      'lockbox codes?',
      'key ?safe codes?',
      'entry codes?',
      'access codes?',
      'security codes?',
      'verification codes?',
      '2fa codes?',
      'mfa codes?',
      'one time (?:pass)?codes?',
      'one time passwords?',
      'authentication codes?',
      'auth codes?',
      'sms codes?',
    ],
  },
  { kind: 'pin', value: 'pin', terms: ['PINs?', 'PUK2?s?', 'OTP', 'TAN'], exactCase: true },
  // A French door's keypad code, letters and digits ("digicode 4B27").
  { kind: 'pin', value: 'pin', terms: ['digicodes?'], weak: true },
  // A combination lock's numbers: "locker combo 12-34-56" (a combination of colours is not one).
  {
    kind: 'pin',
    value: 'digits',
    terms: ['combos?', 'combinations?', 'combinación', 'combinaison', 'kombination', 'combinação'],
    weak: true,
  },
  { kind: 'pin', value: 'digits', terms: ['pins?', 'codes?'], weak: true },
  // "the wifi at the lake house is \"three tall pines by the dock\"": a quoted or random-looking
  // value after the network is its password ("the wifi is slow again" stays).
  { kind: 'password', value: 'key', terms: ['wi-?fi', 'wlan'], weak: true },
  // What opens with a keypad, read as its code when digits follow ("the building door is 4811#",
  // "gate: 2580", "bike lock 0917"): 4 to 12 digits only, so "the gate is 200 m on" stays.
  {
    kind: 'pin',
    value: 'digits',
    terms: [
      'doors?',
      'front doors?',
      'gates?',
      'garages?',
      'keypads?',
      'alarms?',
      'lockers?',
      'lockbox(?:es)?',
      'key ?safes?',
      'safes?',
      'padlocks?',
      '(?:bike )?locks?',
      'buzzers?',
      'intercoms?',
      'entrances?',
      'voicemail',
    ],
    weak: true,
  },
  {
    kind: 'card security code',
    value: 'cvv',
    terms: [
      'cvv2?',
      'cvc2?',
      'card verification (?:value|code|number)',
      'card security code',
      'security code on (?:the back of )?(?:my|the) card',
    ],
  },
  {
    kind: 'card number',
    value: 'card',
    terms: [
      'card numbers?',
      'credit card numbers?',
      'debit card numbers?',
      'card no\\.?',
      'card #',
      'card num',
      'visa numbers?',
      'mastercard numbers?',
      'amex numbers?',
    ],
  },
  {
    kind: 'api key',
    value: 'token',
    terms: [
      'api ?keys?',
      'api secrets?',
      'access key(?: id)?',
      'secret access keys?',
      'secret keys?',
      'client secrets?',
      'app secrets?',
      'consumer secrets?',
      'webhook secrets?',
      'signing secrets?',
      'encryption keys?',
      'master keys?',
      'license keys?',
      'licence keys?',
      'product keys?',
    ],
  },
  {
    kind: 'token',
    value: 'token',
    terms: [
      'api tokens?',
      'access tokens?',
      'auth tokens?',
      'bearer tokens?',
      'bot tokens?',
      'refresh tokens?',
      'session tokens?',
      'personal access tokens?',
      'private tokens?',
      'oauth tokens?',
      'discord tokens?',
      'github tokens?',
      'slack tokens?',
    ],
  },
  { kind: 'token', value: 'key', terms: ['tokens?'], weak: true },
  // "The author's credentials: check them" is about qualifications: only a random-looking value counts.
  {
    kind: 'password',
    value: 'key',
    terms: [
      'credentials',
      'login credentials',
      'credenciales',
      'credenciais',
      'identifiants',
      'zugangsdaten',
    ],
    weak: true,
  },
  { kind: 'api key', value: 'key', terms: ['keys?', 'secrets?'], weak: true },
  {
    kind: 'private key',
    value: 'key',
    terms: [
      'private keys?',
      'ssh keys?',
      'pgp keys?',
      'gpg keys?',
      'signing keys?',
      'wallet keys?',
    ],
  },
  {
    kind: 'recovery code',
    value: 'codes',
    terms: [
      'recovery codes?',
      'backup codes?',
      'recovery keys?',
      'recovery phrases?',
      'secret recovery phrases?',
      'seed phrases?',
      'seed words',
      'mnemonic(?: phrase)?',
      '2fa backup codes?',
      'bitlocker (?:recovery )?keys?',
    ],
  },
  {
    kind: 'security answer',
    value: 'phrase',
    terms: [
      'security answers?',
      'secret answers?',
      'security question answers?',
      'answers? to (?:my|the|your) (?:security|secret) questions?',
      "(?:mother|mom|mum|mama|mommy|mummy)'s maiden name",
      'maiden name of my (?:mother|mom|mum)',
    ],
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      'social security (?:numbers?|no\\.?|#)',
      'social insurance numbers?',
      'national insurance (?:numbers?|no\\.?)',
      'national id(?:entity)?(?: card)?(?: numbers?)?',
      'id card numbers?',
      'identity card numbers?',
      'identity numbers?',
      'id numbers?',
      'passport (?:numbers?|no\\.?|#)',
      "driver's licen[cs]e (?:numbers?|no\\.?)",
      'driving licen[cs]e (?:numbers?|no\\.?)',
      'tax id(?: numbers?)?',
      'tax identification numbers?',
      'aadhaar(?: numbers?)?',
    ],
  },
  {
    kind: 'national id',
    value: 'id',
    terms: ['SSN', 'NI number', 'NINO', 'TIN', 'ITIN', 'PAN(?: number)?'],
    exactCase: true,
  },
  {
    kind: 'account number',
    value: 'account',
    terms: [
      '(?:bank |checking |savings |current )?account (?:numbers?|no\\.?|#)',
      'acct (?:numbers?|no\\.?|#)',
      'routing (?:numbers?|no\\.?|#)',
      'aba (?:numbers?|no\\.?)',
      'ibans?',
    ],
  },
  // "routing 270922361 account 7634941673": a bare account word holds the number only when six
  // digits or more follow it.
  {
    kind: 'account number',
    value: 'account',
    terms: ['(?:bank |checking |savings |current )?accounts?', 'acct', 'routing'],
    weak: true,
  },
  {
    kind: 'account number',
    value: 'account',
    terms: [
      'número de (?:la |mi )?cuenta(?: bancaria)?',
      'numero de cuenta',
      'numéro de (?:mon |ma |la )?compte(?: bancaire)?',
      'número da (?:minha )?conta',
      'numero da conta',
    ],
    headFirst: true,
  },
  { kind: 'account number', value: 'account', terms: ['kontonummer'], attach: 'compound' },
];

const ES: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: [
      'contraseñas?',
      'contrasenas?',
      'clave de acceso',
      'clave secreta',
      'clave del wi ?fi',
      'clave wi ?fi',
    ],
    headFirst: true,
  },
  { kind: 'password', value: 'phrase', terms: ['frase de contraseña'], headFirst: true },
  {
    kind: 'pin',
    value: 'pin',
    terms: [
      'código pin',
      'codigo pin',
      'número pin',
      'numero pin',
      'número secreto',
      'numero secreto',
      'código secreto',
      'codigo secreto',
      'código de acceso',
      'codigo de acceso',
      'código de desbloqueo',
      'código de verificación',
    ],
    headFirst: true,
  },
  { kind: 'password', value: 'word', terms: ['claves?'], headFirst: true, possessive: true },
  { kind: 'pin', value: 'digits', terms: ['códigos?', 'codigos?', 'claves?'], weak: true },
  {
    kind: 'card security code',
    value: 'cvv',
    terms: ['código de seguridad', 'codigo de seguridad'],
    headFirst: true,
  },
  {
    kind: 'card number',
    value: 'card',
    terms: ['número de (?:la |mi )?tarjeta(?: de crédito| de débito)?', 'numero de tarjeta'],
    headFirst: true,
  },
  {
    kind: 'api key',
    value: 'token',
    terms: ['clave (?:de (?:la )?)?api', 'clave privada', 'llave privada'],
    headFirst: true,
  },
  {
    kind: 'recovery code',
    value: 'codes',
    terms: [
      'códigos? de recuperación',
      'codigos? de recuperacion',
      'códigos? de respaldo',
      'frase semilla',
      'frase de recuperación',
    ],
    headFirst: true,
  },
  {
    kind: 'security answer',
    value: 'phrase',
    terms: [
      'respuesta de seguridad',
      'respuesta secreta',
      'respuesta a (?:mi|la) pregunta (?:de seguridad|secreta)',
      'apellido (?:de )?soltera (?:de )?(?:mi )?(?:madre|mamá|mama)',
    ],
    headFirst: true,
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      'número de (?:la )?seguridad social',
      'numero de seguridad social',
      'número de pasaporte',
      'numero de pasaporte',
      'número de(?:l)? dni',
    ],
    headFirst: true,
  },
  {
    kind: 'national id',
    value: 'id',
    terms: ['DNI', 'NIE', 'NIF', 'CURP', 'RUT'],
    exactCase: true,
  },
];

const FR: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: ['mots? de passe', 'mdp'],
    headFirst: true,
  },
  {
    kind: 'password',
    value: 'phrase',
    terms: ['phrase secrète', 'phrase de passe'],
    headFirst: true,
  },
  {
    kind: 'pin',
    value: 'pin',
    terms: [
      'code pin',
      'code secret',
      'code confidentiel',
      "code d'accès",
      'code de déverrouillage',
      'code de vérification',
      'digicode',
    ],
    headFirst: true,
  },
  { kind: 'pin', value: 'pin', terms: ['NIP'], exactCase: true },
  {
    kind: 'card security code',
    value: 'cvv',
    terms: ['cryptogramme(?: visuel)?', 'code de sécurité'],
    headFirst: true,
  },
  {
    kind: 'card number',
    value: 'card',
    terms: ['numéro de (?:ma |la )?carte(?: bancaire| de crédit| bleue)?', 'numero de carte'],
    headFirst: true,
  },
  {
    kind: 'api key',
    value: 'token',
    terms: ["clé (?:d')?api", "jeton(?: d'accès)?", 'clé privée'],
    headFirst: true,
  },
  {
    kind: 'recovery code',
    value: 'codes',
    terms: ['codes? de (?:récupération|secours)', 'phrase de récupération'],
    headFirst: true,
  },
  {
    kind: 'security answer',
    value: 'phrase',
    terms: [
      'réponse secrète',
      'réponse à (?:ma|la) question (?:secrète|de sécurité)',
      'nom (?:de )?jeune fille (?:de )?(?:ma )?mère',
    ],
    headFirst: true,
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      'numéro de sécurité sociale',
      'numero de securite sociale',
      'numéro de passeport',
      'numéro fiscal',
      "numéro d'identification fiscale",
      "numéro de (?:ma |la )?carte d'identité",
    ],
    headFirst: true,
  },
  { kind: 'national id', value: 'id', terms: ['NIR'], exactCase: true },
];

const DE: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: ['passwort', 'passwörter', 'kennwort', 'kennwörter'],
    attach: 'compound',
  },
  {
    kind: 'pin',
    value: 'pin',
    terms: [
      'geheimzahl',
      'geheimnummer',
      'pin-?code',
      'pin-?nummer',
      'zugangscode',
      'entsperrcode',
    ],
    attach: 'compound',
  },
  // Only as the end of a compound ("Türcode", "Alarm-Code"): alone it is the English word's.
  { kind: 'pin', value: 'digits', terms: ['(?<=[\\p{L}-])code'], weak: true, attach: 'compound' },
  {
    kind: 'card security code',
    value: 'cvv',
    terms: ['kartenprüfnummer', 'prüfnummer', 'sicherheitscode'],
    attach: 'compound',
  },
  {
    kind: 'card number',
    value: 'card',
    terms: ['kartennummer', 'kreditkartennummer'],
    attach: 'compound',
  },
  { kind: 'api key', value: 'token', terms: ['api-?schlüssel'], attach: 'compound' },
  { kind: 'private key', value: 'key', terms: ['privater schlüssel'] },
  { kind: 'api key', value: 'key', terms: ['schlüssel'], weak: true },
  {
    kind: 'recovery code',
    value: 'codes',
    terms: ['wiederherstellungscodes?', 'wiederherstellungsschlüssel', 'backup-?codes'],
    attach: 'compound',
  },
  {
    kind: 'security answer',
    value: 'phrase',
    terms: [
      'sicherheitsantwort',
      'antwort auf (?:meine|die) sicherheitsfrage',
      '(?:mädchenname|geburtsname) (?:meiner )?mutter',
    ],
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      'sozialversicherungsnummer',
      'steuer-?id',
      'steuer-?identifikationsnummer',
      'steueridentifikationsnummer',
      'personalausweisnummer',
      'ausweisnummer',
      'reisepassnummer',
      'passnummer',
    ],
    attach: 'compound',
  },
];

const PT: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: ['senhas?', 'palavras? ?-?passe'],
    headFirst: true,
  },
  { kind: 'password', value: 'phrase', terms: ['frase secreta', 'frase-senha'], headFirst: true },
  {
    kind: 'pin',
    value: 'pin',
    terms: ['código de acesso', 'codigo de acesso', 'código secreto', 'código de desbloqueio'],
    headFirst: true,
  },
  {
    kind: 'card security code',
    value: 'cvv',
    terms: ['código de segurança', 'codigo de seguranca'],
    headFirst: true,
  },
  {
    kind: 'card number',
    value: 'card',
    terms: ['número do (?:meu )?cartão(?: de crédito| de débito)?', 'numero do cartao'],
    headFirst: true,
  },
  {
    kind: 'api key',
    value: 'token',
    terms: ['chave (?:de |da )?api', 'chave privada'],
    headFirst: true,
  },
  {
    kind: 'recovery code',
    value: 'codes',
    terms: ['códigos? de recuperação', 'codigos? de recuperacao', 'frase de recuperação'],
    headFirst: true,
  },
  {
    kind: 'security answer',
    value: 'phrase',
    terms: [
      'resposta de segurança',
      'resposta secreta',
      'resposta à (?:minha |a )?pergunta (?:de segurança|secreta)',
      'nome (?:de )?solteira (?:da )?(?:minha )?mãe',
    ],
    headFirst: true,
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      'número do passaporte',
      'numero do passaporte',
      'número de segurança social',
      'cartão de cidadão',
      'número do rg',
      'número do cpf',
    ],
    headFirst: true,
  },
  { kind: 'national id', value: 'id', terms: ['CPF', 'RG', 'NISS'], exactCase: true },
];

const IT_AND_OTHERS: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: [
      "parola d'ordine",
      'lösenord',
      'losenord',
      'adgangskode',
      'passord',
      'hasło',
      'haslo',
      'heslo',
      'parolă',
      'jelszó',
      'jelszo',
      'salasana',
      'şifre(?:m|miz|si)?',
      'sifre(?:m|miz|si)?',
      'kata sandi',
      'kata laluan',
      'mật khẩu',
      'mat khau',
    ],
    headFirst: true,
  },
  { kind: 'password', value: 'word', terms: ['wachtwoord'], attach: 'compound' },
  { kind: 'pin', value: 'pin', terms: ['pincode', 'toegangscode'], attach: 'compound' },
  {
    kind: 'pin',
    value: 'pin',
    terms: ['codice pin', 'codice segreto', "codice d'accesso", 'codice di accesso'],
    headFirst: true,
  },
  { kind: 'pin', value: 'digits', terms: ['codice'], weak: true, headFirst: true },
  {
    kind: 'card number',
    value: 'card',
    terms: ['numero (?:della )?carta(?: di credito)?'],
    headFirst: true,
  },
  { kind: 'api key', value: 'token', terms: ['chiave (?:api|privata)'], headFirst: true },
  {
    kind: 'national id',
    value: 'id',
    terms: ['codice fiscale', 'numero di passaporto', 'burgerservicenummer', 'personnummer'],
    headFirst: true,
  },
  { kind: 'national id', value: 'id', terms: ['BSN'], exactCase: true },
];

const NON_LATIN: readonly TermGroup[] = [
  {
    kind: 'password',
    value: 'word',
    terms: [
      // Cyrillic and Greek are spaced: a noun starts a word (its ending may vary: "пароля").
      '(?<!\\p{L})парол[ьяеюи]',
      '(?<!\\p{L})κωδικός(?: πρόσβασης)?',
      '(?<!\\p{L})συνθηματικό',
      'كلمة (?:المرور|السر)',
      'كلمة مرور',
      'رمز المرور',
      'סיסמה',
      'סיסמא',
      'पासवर्ड',
      'পাসওয়ার্ড',
      'รหัสผ่าน',
      '密码',
      '密碼',
      '口令',
      'パスワード',
      '비밀번호',
      '패스워드',
      '암호',
    ],
    attach: 'bare',
  },
  {
    kind: 'pin',
    value: 'pin',
    terms: [
      '(?<!\\p{L})пин(?:-?код)?(?!\\p{L})',
      '(?<!\\p{L})код доступа',
      'الرقم السري',
      'קוד סודי',
      'पिन',
      'পিন',
      'รหัส ?PIN',
      'PIN码',
      'PIN碼',
      '支付密码',
      '暗証番号',
      '暗証',
      '핀 ?번호',
    ],
    attach: 'bare',
  },
  {
    kind: 'card number',
    value: 'card',
    terms: ['(?<!\\p{L})номер карты', 'رقم البطاقة', '卡号', '卡號', 'カード番号', '카드 ?번호'],
    attach: 'bare',
  },
  {
    kind: 'national id',
    value: 'id',
    terms: [
      '(?<!\\p{L})номер паспорта',
      '(?<!\\p{L})(?:снилс|инн)(?!\\p{L})',
      '身份证号(?:码)?',
      'תעודת (?:ה)?זהות',
      'マイナンバー',
      '주민등록번호',
    ],
    attach: 'bare',
  },
];

/** Every credential noun keel knows, by language. */
export const TERM_GROUPS: readonly TermGroup[] = [
  ...EN,
  ...ES,
  ...FR,
  ...DE,
  ...PT,
  ...IT_AND_OTHERS,
  ...NON_LATIN,
];

/** Modifiers that make "code" (or "Code", "código", "code") something public: a zip code, a dress code. */
export const BLOCKING_MODIFIERS: ReadonlySet<string> = new Set([
  'zip',
  'postal',
  'post',
  'postcode',
  'area',
  'country',
  'dialing',
  'dialling',
  'dress',
  'source',
  'error',
  'status',
  'exit',
  'return',
  'response',
  'http',
  'qr',
  'bar',
  'promo',
  'promotional',
  'promocional',
  'discount',
  'coupon',
  'voucher',
  'referral',
  'tracking',
  'flight',
  'booking',
  'seat',
  'fare',
  'airport',
  'iata',
  'language',
  'color',
  'colour',
  'hex',
  'product',
  'sort',
  'swift',
  'bic',
  'iban',
  'morse',
  'building',
  'tax',
  'fuente',
  'erreur',
  'erro',
  'civil',
  'penal',
  'pénal',
  'route',
  'dresscode',
  'vestimentaire',
  'descuento',
  'réduction',
  'desconto',
  'fiscale',
  'fiscal',
  'palabra',
  // German compound prefixes: Dresscode, Postleitcode, Quellcode, Fehlercode, Strichcode, ...
  'quell',
  'fehler',
  'strich',
  'länder',
  'rabatt',
  'gutschein',
  'farb',
  'status',
  'antwort',
  'programm',
  'maschinen',
]);

/**
 * Words that start a description of a credential, not its value: "my password is too short",
 * "mi contraseña es muy larga", "mon mot de passe est trop court", "mein Passwort ist zu kurz",
 * "a minha senha é muito fraca". Compared lower-cased, on the first word after the joining word.
 */
export const DESCRIBERS: ReadonlySet<string> = new Set(
  [
    // English
    'a an the not no never too very so quite really pretty still also just being been getting',
    'going gonna about like similar same different wrong right correct incorrect invalid valid',
    'expired expiring weak strong long short secure insecure safe unsafe saved stored written',
    'kept hidden in on at with under inside somewhere here there required needed necessary',
    'case changed reset locked blocked compromised leaked stolen hacked hard easy impossible',
    'difficult complicated complex simple ok okay fine good bad great terrible awful based my',
    'your his her their our its something anything nothing what whatever unknown forgotten',
    'lost broken missing empty blank printed encrypted hashed shared protected managed generated',
    'random randomly unique sent attached below above mentioned listed enough updated outdated',
    'old default temporary one that this these those which who where when how why all any each',
    'every more less for from to by of as if because and or but yes known public private',
    'secret confidential personal important sensitive mine yours ours theirs none null',
    'identical changing due almost nearly over only exactly probably maybe perhaps either',
    'neither whatever obvious easy-to-guess guessable memorable written-down asking requesting',
    'same-as tied linked connected sent required optional mandatory is was are were be will',
    'would should could can may might must have has had do does did doesn’t isn’t i you he she',
    "we they it me him them us i'm it's that's isn't doesn't wasn't aren't",
    'now currently actually',
    // Spanish
    'un una unos unas el la los las lo no muy demasiado tan igual mismo misma diferente distinta',
    'distinto incorrecta incorrecto correcta correcto segura seguro débil fuerte larga largo',
    'corta corto nueva nuevo vieja viejo antigua antiguo en de del con para por que mi mis tu tus',
    'su sus nuestra nuestro guardada guardado olvidada olvidado bloqueada bloqueado caducada',
    'expirada fácil facil difícil dificil complicada secreta secreto algo nada cuál cual qué',
    'esta este esa ese aquí aqui ahí allí obligatoria necesaria cambiada robada perdida y o pero',
    'es era fue será sería ya también',
    // French
    'une le les pas ne très trop si aussi toujours encore même différent différente incorrect',
    'incorrecte correcte sûr sûre sur faible fort forte longue court courte nouveau nouvelle',
    'ancien ancienne dans sous chez avec pour du des que qui mon ma mes ton ta tes son sa ses',
    'notre nos votre vos enregistré enregistrée oublié oubliée expiré expirée bloqué bloquée',
    'facile difficile compliqué compliquée secrète quelque rien quoi quel quelle ici là',
    'obligatoire changé changée volé volée perdu perdue et ou mais est était sera',
    // German
    'zu sehr auch noch immer nicht kein keine ein eine einen der die das dem den des falsch',
    'richtig korrekt sicher unsicher schwach stark lang kurz neu alt abgelaufen gespeichert',
    'vergessen gesperrt geändert im auf unter bei mit für von dass mein meine dein deine sein',
    'seine ihr ihre unser unsere einfach schwer kompliziert geheim etwas nichts was welches',
    'hier da dort erforderlich nötig gestohlen weg verloren gleich dasselbe anders leer und',
    'oder aber ist war sind wird',
    // Portuguese
    'um uma os as não nao muito demais também tambem ainda errada errado incorreta segura fraca',
    'fraco longa longo curta curto nova novo velha velho antiga no na nos nas do da dos das com',
    'minha meu minhas meus tua teu sua seu nossa nosso salva guardada esquecida bloqueada',
    'expirada difícil complicada segredo qual aqui aí ali obrigatória necessária trocada',
    'alterada roubada perdida e ou mas é foi será',
    // Italian
    'il lo gli troppo molto anche sbagliata sbagliato giusta giusto sicura debole forte lunga',
    'corta nuova vecchia nella nel della mia mio tua tuo è era sarà',
  ]
    .join(' ')
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Describing words that can also open a passphrase ("my password is correct horse battery
 * staple"): when two more words follow in the same clause, none of them a stop or a describer,
 * the words are the value.
 */
export const PASSPHRASE_OPENERS: ReadonlySet<string> = new Set(
  'correct wrong right strong weak long short simple random old new good bad great hard easy secret private blue red green black white happy purple orange yellow'.split(
    ' ',
  ),
);

/**
 * Words that end a multi-word value: what follows them is the sentence going on, not the secret
 * ("my password is hunter2 for the bank", "… sunshine and my PIN is …"). Lower-cased.
 */
export const VALUE_STOPS: ReadonlySet<string> = new Set(
  [
    'and or but for to at in on from with since until till because so which that who where when',
    'while if then than as by of about after before during please thanks thank ok okay now today',
    'tonight yesterday tomorrow remember also too again just right lol haha i it its my your his',
    'her our their me you he she we they this these those is was are were be been will would',
    'should can could do does did not no yes dont don’t don’t keep save write note',
    "i'm it's don't won't can't",
    'y o pero para por con en desde hasta porque que cuando si gracias también hoy ayer mañana mi',
    'mis tu su es era no ya guarda recuerda',
    'et ou mais pour par avec dans depuis jusqu parce quand merci aussi aujourd hier demain mon',
    'ma mes ton ta son sa est était ne pas garde retiens',
    'und oder aber für mit seit bis weil dass wenn falls danke auch heute gestern morgen mein',
    'meine ist war nicht merk',
    'e ou mas com em até porque quando se obrigado obrigada hoje ontem amanhã minha meu é',
    'era não lembra',
    'ma per fino perché che grazie anche oggi ieri domani mia mio è',
  ]
    .join(' ')
    .split(/\s+/)
    .filter(Boolean),
);

/** Pronouns and the like that cannot be a value stated before a credential noun ("that is my password"). */
export const REVERSE_NON_VALUES: ReadonlySet<string> = new Set(
  [
    'that this it what which who mine yours his hers ours theirs something nothing everything',
    'anything there here one same',
    'esto eso esta este ese esa ello lo cuál cual qué que ça cela ceci ce quoi lequel laquelle',
    'das dies dieses diese es was welches isso isto aquilo qual cosa questo quello ciò',
  ]
    .join(' ')
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words between a determiner and a credential noun that make a statement general ("sunshine is
 * the worst password"): such a sentence is not telling keel a secret.
 */
export const REVERSE_GENERAL: ReadonlySet<string> = new Set(
  [
    'best worst good bad common popular favorite favourite typical usual classic perfect strong',
    'weak great terrible secure insecure example sample default same most least obvious stupid',
    'dumb silly funny terrible awful famous a an un une uma um una ein eine another other',
  ]
    .join(' ')
    .split(/\s+/),
);

/**
 * Nouns that, after a credential noun in a slot key, make the key about something else:
 * `password_manager`, `pin_pad`, `password_policy`.
 */
export const KEY_HEADS: ReadonlySet<string> = new Set(
  [
    'manager managers app apps pad pads hint hints reset resets policy policies rule rules',
    'requirement requirements strength length change changes changed expiry expiration generator',
    'vault field prompt screen protected protection tips tip advice ideas habits practice',
    'practices hygiene history reminder reminders format complexity question questions sharing',
    'leak leaks breach lockout attempts box reader rotation storage safety update updates',
    'recovery manager tool tools',
    'gestor gestionnaire gerenciador gestore manager verwaltung',
  ]
    .join(' ')
    .split(/\s+/),
);

/** Words that may open the words between a credential noun and its joining word ("for the bank"). */
const QUALIFIER_STARTERS = [
  'for',
  'to',
  'of',
  'on',
  'at',
  'in',
  'from',
  'with',
  'by',
  'that',
  'which',
  'i',
  'we',
  'you',
  'my',
  'the',
  'our',
  'your',
  'this',
  'para',
  'de',
  'del',
  'do',
  'da',
  'dos',
  'das',
  'no',
  'na',
  'nos',
  'nas',
  'pour',
  'du',
  'des',
  'au',
  'aux',
  'à',
  'für',
  'von',
  'vom',
  'zum',
  'zur',
  'bei',
  'beim',
  'im',
  'am',
  'mit',
  'der',
  'die',
  'dem',
  'den',
  'di',
  'della',
  'dello',
  'per',
  'dell',
  'che',
  'que',
  'qui',
  'dass',
  'voor',
  'van',
  'bij',
  'op',
  'för',
  'till',
  'på',
  'của',
  'cho',
  'saya',
  'untuk',
  'ke',
  'mea',
];

const NOT_LETTER_AFTER = '(?![\\p{L}\\p{N}\\p{M}])';

/** Copulas and verbs of Latin-script languages that join a noun to its value. */
const JOINING_WORDS =
  'is|was|are|were|es|era|son|fue|est|était|etait|sont|ist|war|lautet|lauten|sind|é|são|sao|foi|è|sono|är|er|jest|adalah|ialah|là';

/**
 * What joins a Latin-script credential noun to its value, as alternatives with named groups:
 * `sym` (":", "=", "->", a dash), `poss` ("'s" as in "password's hunter2"), `verb` ("is", "es",
 * "est", "ist", "é", "c'est" …).
 */
export const LATIN_JOIN = [
  `(?<sym>["'”’»]?[^\\S\\n]*(?:[:=＝]|->|=>|[—–]|-(?=\\s)))`,
  // The joining word may open the next line ("keypad code⏎is 58B30#").
  `(?<verb>(?:[^\\S\\n]*,?[^\\S\\n]*c['’]est|(?:[^\\S\\n]+|[^\\S\\n]*\\n[^\\S\\n]*)(?:${JOINING_WORDS}))${NOT_LETTER_AFTER}(?:[^\\S\\n]*[:=])?)`,
  `(?<poss>['’]s${NOT_LETTER_AFTER})`,
].join('|');

/**
 * The words that may stand between a head-last noun and its joining word ("for the bank", "for
 * gov.br": a dot inside a word does not end the clause), an aside in brackets among them ("for
 * the allotment (the side gate, not the main one)").
 */
export const LATIN_QUALIFIER = `[^\\S\\n]+(?:${QUALIFIER_STARTERS.join('|')})${NOT_LETTER_AFTER}(?:[^\\n.;:!?=,()]|\\.(?=[\\p{L}\\p{N}])|\\([^()\\n]{0,80}\\)){0,60}?`;

/**
 * An aside between commas after a noun, before its joining word ("my bank password, in case I
 * forget it, is …", "la clave, por si acaso, es …"): opened by a word of caution.
 */
export const LATIN_ASIDE =
  ',[^\\S\\n]*(?:in case|just in case|for when|for the record|if (?:i|you)|por si|por las dudas|au cas où|pour info|falls|nur falls|caso|só para)[^,.;:!?\\n]{0,40},[^\\S\\n]*';

/** Up to two bare words after a head-first noun ("contraseña wifi", "mot de passe wifi"). */
export const BARE_QUALIFIER = `(?:[^\\S\\n]+[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}'’-]|\\.(?=[\\p{L}\\p{N}])){0,30}){1,2}?`;

/** Adverbs that may stand between the joining word and the value ("is now", "is still", "ist jetzt"). */
export const LATIN_SKIP = `(?:[^\\S\\n]+(?:now|still|currently|actually|just|simply|literally|really|set to|changed to|now set to|ahora|todavía|aún|actualmente|maintenant|toujours|encore|actuellement|jetzt|noch|immer noch|aktuell|agora|ainda|atualmente|ora|ancora)${NOT_LETTER_AFTER}){0,3}`;

/** What joins a credential noun of another script to its value. */
export const OTHER_JOIN = `[^\\S\\n]*(?:[:：=＝]|是|为|為|は|が|는|은|이|가|คือ|هي|هو|היא|הוא|הם|है|হল|হলো|হচ্ছে|[—–]|это|является|είναι)[^\\S\\n]*[:：]?`;

const OTHER_WORD = '[^\\s:：=＝。，、.,;!?；！？]';

/**
 * Words that may stand between a credential noun of another script and the joining word: a part
 * glued to the noun ("ของฉัน", "的"), then up to two whole words ("от wifi", "שלי").
 */
export const OTHER_QUALIFIER = `(?:[^\\S\\n]*${OTHER_WORD}{1,20}?)?(?:[^\\S\\n]+${OTHER_WORD}{1,20}(?!${OTHER_WORD})){0,2}`;

/** Sentence-final words of other scripts that end a value ("sunshineです", "해바라기입니다"). */
export const OTHER_VALUE_TAIL = /(?:です|でした|だ|입니다|이에요|예요|이야|야|है|হয়|ครับ|ค่ะ)$/u;

/** Verbs before a credential noun that take its new value after "to" ("I changed my password to …"). */
export const SET_VERB_BEFORE = new RegExp(
  `(?:^|[^\\p{L}\\p{N}])(?:set|sets|setting|change|changed|changing|changes|update|updated|reset|switched|switch|cambié|cambie|cambiado|cambiar|puse|changé|changer|mettre|geändert|ändern|gesetzt|mudei|mudar|troquei|alterei|defini|cambiato|impostato)${NOT_LETTER_AFTER}[^.!?\\n]{0,40}$`,
  'iu',
);

/** What joins the noun to the new value after a setting verb. */
export const SET_JOIN = `[^\\S\\n]+(?:to|as|into|a|en|para|pour|como|auf|zu|in|con)[^\\S\\n]+`;

/** Determiners before a credential noun in "sunshine is my wifi password". */
export const REVERSE_DETERMINERS =
  'my|our|the|your|mi|mis|nuestra|nuestro|la|el|tu|su|mon|ma|mes|notre|le|ton|ta|mein|meine|meinen|unser|unsere|das|die|der|dein|deine|a minha|o meu|a nossa|o nosso|minha|meu|nossa|nosso|tua|teu|la mia|il mio|il|mio|mia';

/**
 * Joining words in "sunshine is my wifi password" / "use hunter2 as my password" / "7390 — that's
 * the PIN".
 */
export const REVERSE_JOIN =
  "is|was|es|era|est|était|ist|war|é|è|as|como|comme|als|=|that's|that’s|it's|it’s|c'est|c’est";

/** Romance prepositions that make a noun the complement of another noun ("gestor de contraseñas"). */
export const COMPLEMENT_BEFORE =
  /(?:^|[^\p{L}\p{N}])(?:de|des|du|del|da|do|das|dos|di|d['’])(?:[^\S\n]+(?:mis|mes|la|las|los|les|el|le|minhas|meus|as|os|a|o|sus|ses|tus|tes|nos|nossas|nossos))?[^\S\n]*$/iu;

/**
 * The same, for a noun borrowed from English ("gestor de passwords"): without "da", "do", "das",
 * "dos", which are also German and English words ("das Passwort", "do password managers …").
 */
export const COMPLEMENT_BEFORE_LOANWORD =
  /(?:^|[^\p{L}\p{N}])(?:de|des|du|del|di|d['’])(?:[^\S\n]+(?:mis|mes|la|las|los|les|el|le|sus|ses|tus|tes))?[^\S\n]*$/iu;

/** Nouns that, before "de", still name a credential ("número de PIN", "code de la carte"). */
export const COMPLEMENT_CONTAINERS: ReadonlySet<string> = new Set([
  'número',
  'numero',
  'numéro',
  'code',
  'código',
  'codigo',
  'codice',
  'clave',
  'chave',
]);

/**
 * Words that say a sentence is about a bank account or an identity number: a number there that
 * passes a single-check-digit test (a routing number, an Israeli id, a Steuer-ID) is withheld. A
 * regex source, matched case-insensitively on whole words.
 */
export const ACCOUNT_CONTEXT = `(?<![\\p{L}\\p{N}])(?:accounts?|acct|routing|aba|iban|bank|banking|checking|savings|konto|bankverbindung|cuenta|compte|conta|banco|banque|id|ids|identity|identification|ausweis|personalausweis|steuer-?id|steuer|tax|taxpayer|passport|ssn|dni|nie|cpf|nir|insee|snils|bsn|burgerservicenummer|sofi|nif|contribuinte|codice fiscale|pesel|sin|social insurance|social security|national insurance|nino|personnummer|aadhaa?r|kimlik|cpr|fødselsnummer|fodselsnummer|personnummeret|hetu|henkilötunnus|rijksregisternummer|sécu|sécurité sociale|securite sociale|seguridad social|segurança social|seguranca social|sozialversicherungsnummer|sv-nummer|снилс|инн|паспорт|[והבלמשכ]{0,3}(?:תעודת|זהות|ת״ז|ת"ז)|身份证|身份證|マイナンバー|個人番号|주민등록)(?![\\p{L}\\p{N}])`;

/**
 * Words that say a sentence answers a security question ("for the security question", "pregunta
 * de seguridad", "question secrète", "Sicherheitsfrage", "pergunta de segurança"): the value the
 * sentence then gives is a security answer, whatever it is the name of. A regex source,
 * case-insensitive; the caller checks that no letter comes before it.
 */
export const SECURITY_CONTEXT = `(?:security (?:questions?|answers?)|secret (?:questions?|answers?)|pregunta (?:de seguridad|secreta)|respuesta (?:de seguridad|secreta)|question (?:secrète|secrete|de sécurité|de securite)|réponse secrète|sicherheitsfrage|sicherheitsantwort|pergunta (?:de segurança|de seguranca|secreta)|resposta (?:de segurança|secreta)|domanda (?:di sicurezza|segreta))(?![\\p{L}])`;

/**
 * A user name and its value just before a password noun: "login: sam / password …", "user sam
 * pass …", "username is sam and password …". In such a pair the password noun needs no colon and
 * its value no password look. The halves are parallel: a user name joined by ":", "=" or "is"
 * may be followed by "and"; a bare one ("user sam pass …") only by a slash, a comma or nothing
 * ("user reviews and password tips" is no pair). A regex source, case-insensitive, anchored at
 * the end.
 */
export const USER_BEFORE = (() => {
  const s = '[^\\S\\n]';
  const noun =
    '(?<![\\p{L}])(?:user ?names?|users?|logins?|log-?ins|user ?ids?|e-?mails?|usuarios?|utilisateurs?|identifiants?|benutzer(?:name)?|nutzername|anmeldename|usuários?)';
  const value = '(?!(?:and|or|y|o|et|ou|und|oder|e|the|my|your)[^\\p{L}])[^\\s,;/|]{1,64}';
  const det = `(?:(?:the|my|el|la|mi|le|mon|das|mein|o|a|minha)${s}+)?`;
  const joined = `${s}*(?:[:=]|${s}(?:is|es|est|ist|é))${s}*${value}${s}*(?:[,;/|&]|${s}(?:and|y|et|und|e|with|con|avec|mit|com))?`;
  const bare = `${s}+${value}${s}*[,;/|]?`;
  return `${noun}(?:${joined}|${bare})${s}*${det}$`;
})();

/**
 * Words that say a code was delivered to the owner ("texted", "sent me", "SMS", "OTP",
 * "verification", "mandaron", "envoyé", "geschickt", "mandou"): short digits right after them are
 * a one-time code. A regex source, case-insensitive; the caller checks that no letter or digit
 * comes before it.
 */
export const DELIVERY_WORDS = `(?:texted|texting|sms(?:ed|'d)?|text message|sent|otp|verification|verify|one-time|mandaron|enviaron|envió|me llegó|mensaje|envoyé|envoyée|reçu|texto|geschickt|gesendet|bekommen|erhalten|mandou|mandaram|enviou|enviaram|recebi|mensagem)(?![\\p{L}\\p{N}])`;

/** Small words that may stand between a delivery word and its code ("texted me the", "par SMS"). */
export const DELIVERY_FILLERS =
  'me|us|you|him|her|them|a|an|the|my|this|code|codes|pin|via|by|per|por|par|mir|uns|dir|me|nos|moi|nous|le|la|les|el|lo|un|une|una|uno|o|um|uma|ein|einen|eine|die|den|der|das|sms|text|mail|email|de|du|do|da|mit|com|con|avec|is|es|est|ist|é|was|were';
