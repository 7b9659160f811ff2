/**
 * The phrasings the secret tests run: statements that hold a credential, in the forms people type
 * and in several languages, each beside what a capture would store for it; and statements about
 * credentials that hold none, which keel must keep as the owner said them.
 *
 * Used only by tests (excluded from the build).
 *
 * @module
 */
import type { SecretKind } from './kinds.js';

/** A statement that holds a secret. */
export interface SecretPhrasing {
  lang: string;
  text: string;
  /** The secret exactly as the text holds it: what must never be stored. */
  secret: string;
  kind: SecretKind;
  /** The slot key a capture of the statement would use. */
  key: string;
  /** The slot value a capture would store (default: `secret`). */
  value?: string;
  /** The expected redaction when it is not `text` with `secret` replaced by the placeholder. */
  redacted?: string;
}

/** A statement about a credential that holds none: kept as written. */
export interface HarmlessPhrasing {
  lang: string;
  text: string;
  /** A slot a capture could write from it, kept as written too. */
  slot?: { key: string; value: string };
}

/** Statements that hold a secret (every form: "my X is Y", "X: Y", "X = Y", "X's Y", "X — Y", "Y is my X" …). */
export const SECRET_PHRASINGS: readonly SecretPhrasing[] = [
  // English
  {
    lang: 'en',
    text: 'my wifi password is sunshine',
    secret: 'sunshine',
    kind: 'password',
    key: 'wifi_password',
  },
  {
    lang: 'en',
    text: 'remember that my bank password is Tr0ub4dor&3xq',
    secret: 'Tr0ub4dor&3xq',
    kind: 'password',
    key: 'bank_password',
  },
  { lang: 'en', text: 'password: hunter2', secret: 'hunter2', kind: 'password', key: 'password' },
  {
    lang: 'en',
    text: 'DB_PASSWORD=s3cr3tP4ss',
    secret: 's3cr3tP4ss',
    kind: 'password',
    key: 'db_password',
  },
  {
    lang: 'en',
    text: "my gmail password's Correct-Horse-9",
    secret: 'Correct-Horse-9',
    kind: 'password',
    key: 'gmail_password',
  },
  {
    lang: 'en',
    text: 'the password for the bank is Maple#Leaf77',
    secret: 'Maple#Leaf77',
    kind: 'password',
    key: 'password_bank',
  },
  {
    lang: 'en',
    text: 'remember that the wifi password — bluemoon42',
    secret: 'bluemoon42',
    kind: 'password',
    key: 'wifi_password',
  },
  {
    lang: 'en',
    text: 'my passphrase is correct horse battery staple',
    secret: 'correct horse battery staple',
    kind: 'password',
    key: 'passphrase',
  },
  {
    lang: 'en',
    text: 'I changed my wifi password to marigold',
    secret: 'marigold',
    kind: 'password',
    key: 'wifi_password',
  },
  {
    lang: 'en',
    text: 'marigold77 is my new router password',
    secret: 'marigold77',
    kind: 'password',
    key: 'router_password',
  },
  {
    lang: 'en',
    text: 'https://sam:Hunter2Pass@example.com/login',
    secret: 'Hunter2Pass',
    kind: 'password',
    key: 'login_url',
    value: 'https://sam:Hunter2Pass@example.com/login',
  },
  { lang: 'en', text: 'my PIN is 4821', secret: '4821', kind: 'pin', key: 'pin' },
  {
    lang: 'en',
    text: 'my passcode is sunshine and I never change it',
    secret: 'sunshine',
    kind: 'pin',
    key: 'passcode',
  },
  {
    lang: 'en',
    text: 'my pin for the garage is 3344',
    secret: '3344',
    kind: 'pin',
    key: 'pin_garage',
  },
  {
    lang: 'en',
    text: 'the alarm code for the house is 55190',
    secret: '55190',
    kind: 'pin',
    key: 'alarm_code',
  },
  {
    lang: 'en',
    text: 'my phone passcode = 908172',
    secret: '908172',
    kind: 'pin',
    key: 'phone_passcode',
  },
  { lang: 'en', text: 'verification code: 552901', secret: '552901', kind: 'pin', key: 'code' },
  {
    lang: 'en',
    text: 'my api key is sk-proj-Ab12Cd34Ef56Gh78Ij90Kl',
    secret: 'sk-proj-Ab12Cd34Ef56Gh78Ij90Kl',
    kind: 'api key',
    key: 'api_key',
  },
  {
    lang: 'en',
    text: 'api key: 8f3a9c2e7b1d4f6a0c5e',
    secret: '8f3a9c2e7b1d4f6a0c5e',
    kind: 'api key',
    key: 'api_key',
  },
  {
    lang: 'en',
    text: 'my github token is ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
    secret: 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
    kind: 'token',
    key: 'github_token',
  },
  {
    lang: 'en',
    text: 'my deploy key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----',
    secret: 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
    kind: 'private key',
    key: 'deploy_key',
    value:
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----',
    redacted: 'my deploy key:\n[secret withheld]',
  },
  {
    lang: 'en',
    text: 'my recovery codes are 7731-2290 5512-8834 1209-7765',
    secret: '7731-2290 5512-8834 1209-7765',
    kind: 'recovery code',
    key: 'recovery_codes',
  },
  {
    lang: 'en',
    text: "my mother's maiden name is Kowalczyk",
    secret: 'Kowalczyk',
    kind: 'security answer',
    key: 'mothers_maiden_name',
  },
  {
    lang: 'en',
    text: 'the answer to my security question is Pickles the hamster',
    secret: 'Pickles the hamster',
    kind: 'security answer',
    key: 'security_answer',
  },
  {
    lang: 'en',
    text: 'my card number is 4111 1111 1111 1111',
    secret: '4111 1111 1111 1111',
    kind: 'card number',
    key: 'card_number',
  },
  {
    lang: 'en',
    text: 'card: 5500-0000-0000-0004',
    secret: '5500-0000-0000-0004',
    kind: 'card number',
    key: 'card',
  },
  { lang: 'en', text: 'my CVV is 737', secret: '737', kind: 'card security code', key: 'cvv' },
  {
    lang: 'en',
    text: 'my SSN is 078-05-1120',
    secret: '078-05-1120',
    kind: 'national id',
    key: 'ssn',
  },
  {
    lang: 'en',
    text: 'my national insurance number is QQ 12 34 56 C',
    secret: 'QQ 12 34 56 C',
    kind: 'national id',
    key: 'national_insurance_number',
  },
  {
    lang: 'en',
    text: 'my passport number is X1234567',
    secret: 'X1234567',
    kind: 'national id',
    key: 'passport_number',
  },
  // The noun's clause, a value on the next line, credential pairs
  {
    lang: 'en',
    text: 'the wifi password at the cabin by the lake is Bluefin!42',
    secret: 'Bluefin!42',
    kind: 'password',
    key: 'wifi_password',
  },
  {
    lang: 'en',
    text: 'the password for my credit union login is\nOtter-Lamp-55',
    secret: 'Otter-Lamp-55',
    kind: 'password',
    key: 'credit_union_password',
  },
  {
    lang: 'en',
    text: 'login: maria.k / password: quietfox',
    secret: 'quietfox',
    kind: 'password',
    key: 'password',
  },
  {
    lang: 'en',
    text: 'user jdoe pass lanternfish',
    secret: 'lanternfish',
    kind: 'password',
    key: 'password',
  },
  // Codes: combinations, codes someone sent
  {
    lang: 'en',
    text: 'my bike lock combination is 3-9-27',
    secret: '3-9-27',
    kind: 'pin',
    key: 'bike_lock_combination',
  },
  {
    lang: 'en',
    text: 'the code the courier texted me is 804 113',
    secret: '804 113',
    kind: 'pin',
    key: 'delivery_code',
  },
  {
    lang: 'en',
    text: "my dentist's portal sent me 7730 to log in",
    secret: '7730',
    kind: 'pin',
    key: 'login_code',
  },
  {
    lang: 'pt',
    text: 'o banco mandou 2281 09 por SMS agora',
    secret: '2281 09',
    kind: 'pin',
    key: 'código_sms',
  },
  {
    lang: 'es',
    text: 'el código que me mandaron por SMS es 390 446',
    secret: '390 446',
    kind: 'pin',
    key: 'código_sms',
  },
  {
    lang: 'fr',
    text: 'le code reçu par texto : 771 502',
    secret: '771 502',
    kind: 'pin',
    key: 'code_texto',
  },
  {
    lang: 'de',
    text: 'die TAN von der Bank lautet 662 190',
    secret: '662 190',
    kind: 'pin',
    key: 'tan_code',
  },
  // Accounts and ids by their check digits
  {
    lang: 'en',
    text: 'my checking account number is 00123456789',
    secret: '00123456789',
    kind: 'account number',
    key: 'account_number',
  },
  {
    lang: 'en',
    text: 'routing 021000021 for the direct deposit form',
    secret: '021000021',
    kind: 'account number',
    key: 'routing_number',
  },
  {
    lang: 'es',
    text: 'para la transferencia: ES91 2100 0418 4502 0005 1332',
    secret: 'ES91 2100 0418 4502 0005 1332',
    kind: 'account number',
    key: 'iban',
  },
  {
    lang: 'pt',
    text: 'o meu IBAN é PT50000201231234567890154',
    secret: 'PT50000201231234567890154',
    kind: 'account number',
    key: 'iban',
  },
  {
    lang: 'es',
    text: 'apunta 12345678Z para la matrícula',
    secret: '12345678Z',
    kind: 'national id',
    key: 'dni',
  },
  {
    lang: 'fr',
    text: 'mon numéro INSEE : 1 85 05 78 006 084 91',
    secret: '1 85 05 78 006 084 91',
    kind: 'national id',
    key: 'numéro_insee',
  },
  {
    lang: 'de',
    text: 'für die Steuer brauche ich 86095742719',
    secret: '86095742719',
    kind: 'national id',
    key: 'steuer_id',
  },
  // Security answers, the secret half of a key pair
  {
    lang: 'en',
    text: 'security question for the airline: the street I grew up on is Calle Mayor',
    secret: 'Calle Mayor',
    kind: 'security answer',
    key: 'security_answer',
  },
  {
    lang: 'de',
    text: 'Sicherheitsfrage der Bank: der Name meines ersten Hundes ist Struppi',
    secret: 'Struppi',
    kind: 'security answer',
    key: 'sicherheitsantwort',
  },
  {
    lang: 'en',
    text: 'aws id AKIAQWERTYUIOPASDFGH, secret Zx9Kq2Lm8Np4Rs6Tv1Wy3Ab5Cd7Ef0GhIjKlMnOp',
    secret: 'Zx9Kq2Lm8Np4Rs6Tv1Wy3Ab5Cd7Ef0GhIjKlMnOp',
    kind: 'api key',
    key: 'aws_secret_access_key',
    redacted: 'aws id [secret withheld], secret [secret withheld]',
  },
  // Spanish
  {
    lang: 'es',
    text: 'mi contraseña es girasol',
    secret: 'girasol',
    kind: 'password',
    key: 'contraseña',
  },
  {
    lang: 'es',
    text: 'recuerda que la contraseña del wifi es Mariposa2024',
    secret: 'Mariposa2024',
    kind: 'password',
    key: 'contraseña_wifi',
  },
  { lang: 'es', text: 'mi PIN del banco: 7712', secret: '7712', kind: 'pin', key: 'pin_banco' },
  {
    lang: 'es',
    text: 'la clave de mi tarjeta es 9034',
    secret: '9034',
    kind: 'pin',
    key: 'clave_tarjeta',
  },
  {
    lang: 'es',
    text: 'el número de mi tarjeta es 4111111111111111',
    secret: '4111111111111111',
    kind: 'card number',
    key: 'número_tarjeta',
  },
  {
    lang: 'es',
    text: 'el apellido de soltera de mi madre es Etxeberria',
    secret: 'Etxeberria',
    kind: 'security answer',
    key: 'apellido_soltera_madre',
  },
  // French
  {
    lang: 'fr',
    text: 'mon mot de passe est papillon',
    secret: 'papillon',
    kind: 'password',
    key: 'mot_de_passe',
  },
  {
    lang: 'fr',
    text: "le mot de passe du wifi, c'est Lavande99",
    secret: 'Lavande99',
    kind: 'password',
    key: 'mot_de_passe_wifi',
  },
  { lang: 'fr', text: 'mon code PIN est 2580', secret: '2580', kind: 'pin', key: 'code_pin' },
  {
    lang: 'fr',
    text: 'le code de la porte est 1379',
    secret: '1379',
    kind: 'pin',
    key: 'code_porte',
  },
  {
    lang: 'fr',
    text: 'le nom de jeune fille de ma mère est Lefebvre',
    secret: 'Lefebvre',
    kind: 'security answer',
    key: 'nom_jeune_fille_mère',
  },
  // German
  {
    lang: 'de',
    text: 'mein Passwort ist Sonnenblume',
    secret: 'Sonnenblume',
    kind: 'password',
    key: 'passwort',
  },
  {
    lang: 'de',
    text: 'Das WLAN-Passwort lautet Kuckucksuhr',
    secret: 'Kuckucksuhr',
    kind: 'password',
    key: 'wlan-passwort',
  },
  {
    lang: 'de',
    text: 'Mein Kennwort: Tannenbaum!',
    secret: 'Tannenbaum!',
    kind: 'password',
    key: 'kennwort',
  },
  { lang: 'de', text: 'meine Geheimzahl ist 6067', secret: '6067', kind: 'pin', key: 'geheimzahl' },
  {
    lang: 'de',
    text: 'die Antwort auf meine Sicherheitsfrage ist Bello',
    secret: 'Bello',
    kind: 'security answer',
    key: 'sicherheitsantwort',
  },
  // Portuguese
  {
    lang: 'pt',
    text: 'minha senha é abacaxi',
    secret: 'abacaxi',
    kind: 'password',
    key: 'senha',
  },
  {
    lang: 'pt',
    text: 'a senha do banco é Jabuticaba7',
    secret: 'Jabuticaba7',
    kind: 'password',
    key: 'senha_banco',
  },
  {
    lang: 'pt',
    text: 'o código de acesso é 73519',
    secret: '73519',
    kind: 'pin',
    key: 'código_acesso',
  },
  {
    lang: 'pt',
    text: 'meu CPF é 529.982.247-25',
    secret: '529.982.247-25',
    kind: 'national id',
    key: 'cpf',
  },
  // Italian, Dutch
  {
    lang: 'it',
    text: 'la mia password è girasole',
    secret: 'girasole',
    kind: 'password',
    key: 'password',
  },
  {
    lang: 'nl',
    text: 'mijn wachtwoord is zonnebloem',
    secret: 'zonnebloem',
    kind: 'password',
    key: 'wachtwoord',
  },
  // Other scripts
  {
    lang: 'zh',
    text: '我的密码是lanmao2024',
    secret: 'lanmao2024',
    kind: 'password',
    key: 'password',
  },
  {
    lang: 'ja',
    text: 'パスワードはsakura77です',
    secret: 'sakura77',
    kind: 'password',
    key: 'password',
  },
  {
    lang: 'ko',
    text: '비밀번호는 haneul99',
    secret: 'haneul99',
    kind: 'password',
    key: 'password',
  },
  {
    lang: 'ru',
    text: 'мой пароль — подсолнух',
    secret: 'подсолнух',
    kind: 'password',
    key: 'password',
  },
];

/** Statements about credentials that hold none: capture must keep them. */
export const HARMLESS_PHRASINGS: readonly HarmlessPhrasing[] = [
  // English
  { lang: 'en', text: 'I changed my password yesterday' },
  {
    lang: 'en',
    text: 'the password manager I use is 1Password',
    slot: { key: 'password_manager', value: '1Password' },
  },
  { lang: 'en', text: 'my PIN pad is broken', slot: { key: 'pin_pad', value: 'broken' } },
  { lang: 'en', text: 'my password is too short' },
  { lang: 'en', text: 'my password was stolen last week, so I changed the locks' },
  { lang: 'en', text: 'I forgot my password for the bank again' },
  { lang: 'en', text: 'remember to change my password on Friday' },
  { lang: 'en', text: 'what is the wifi password?' },
  { lang: 'en', text: 'the wifi password is on the fridge' },
  { lang: 'en', text: 'my password is stored in Bitwarden' },
  { lang: 'en', text: 'my bank sent me a new PIN today' },
  { lang: 'en', text: 'my zip code is 90210', slot: { key: 'zip_code', value: '90210' } },
  { lang: 'en', text: 'the dress code is smart casual' },
  { lang: 'en', text: 'the key to success is patience' },
  { lang: 'en', text: 'KeePassXC is my password manager' },
  { lang: 'en', text: 'sunshine is a terrible password' },
  {
    lang: 'en',
    text: 'my password hint is my first pet',
    slot: { key: 'password_hint', value: 'my first pet' },
  },
  { lang: 'en', text: 'the pin on the map is Lisbon' },
  { lang: 'en', text: "my mother's name is Ana", slot: { key: 'mothers_name', value: 'Ana' } },
  { lang: 'en', text: 'my passport is in the top drawer' },
  { lang: 'en', text: 'I need to reset my PIN at the branch' },
  { lang: 'en', text: 'my password is 12 characters long' },
  { lang: 'en', text: 'my code is 1500 lines long' },
  { lang: 'en', text: 'the secret ingredient is love' },
  { lang: 'en', text: 'the api key is in the .env file' },
  { lang: 'en', text: 'the access code is printed on the ticket' },
  { lang: 'en', text: 'her maiden name is Smith' },
  { lang: 'en', text: 'anyone with a basic understanding of SQL can help' },
  { lang: 'en', text: "Assess the author's credentials: check their degree" },
  { lang: 'en', text: 'Password: Choose a strong one' },
  // Numbers that are not secrets, and the new classes' words without a secret
  { lang: 'en', text: 'my favourite number is 7' },
  { lang: 'en', text: 'order 112-4471983-5530127 arrives Tuesday' },
  { lang: 'en', text: 'I fly TP 1349 to Porto on the 3rd' },
  { lang: 'en', text: 'call me on 0612 345 678 after lunch' },
  { lang: 'en', text: 'we moved here in 2019' },
  { lang: 'en', text: 'my locker is number 118 by the sauna' },
  { lang: 'en', text: 'the combination of rain and wind was awful' },
  { lang: 'en', text: 'the code they sent expires in 10 minutes' },
  { lang: 'en', text: 'she texted me 3 times last night' },
  { lang: 'en', text: 'I sent 40 emails today and 2000 dollars to my sister' },
  { lang: 'pt', text: 'o banco mandou a fatura em 2024' },
  { lang: 'en', text: 'my first pet was a hamster called Rex' },
  { lang: 'en', text: 'I need to update my security questions at the bank' },
  { lang: 'en', text: 'user reviews and password tips are on the wiki' },
  { lang: 'en', text: 'my bank account was closed in 2021' },
  { lang: 'es', text: 'el pedido 40-55120-3 llega el martes' },
  { lang: 'fr', text: 'mon code postal est 75011' },
  { lang: 'de', text: 'meine Postleitzahl ist 10115' },
  // Spanish
  { lang: 'es', text: 'olvidé mi contraseña' },
  { lang: 'es', text: 'mi contraseña es muy larga' },
  { lang: 'es', text: 'el gestor de contraseñas que uso es Bitwarden' },
  { lang: 'es', text: 'la clave del éxito es trabajar' },
  { lang: 'es', text: 'mi código postal es 28013' },
  // French
  { lang: 'fr', text: "j'ai oublié mon mot de passe" },
  { lang: 'fr', text: 'mon mot de passe est trop court' },
  { lang: 'fr', text: "le gestionnaire de mots de passe que j'utilise est Bitwarden" },
  // German
  { lang: 'de', text: 'Ich habe mein Passwort vergessen' },
  { lang: 'de', text: 'Mein Passwort ist zu kurz' },
  { lang: 'de', text: 'Mein Passwort-Manager ist KeePass' },
  { lang: 'de', text: 'der Dresscode ist elegant' },
  // Portuguese
  { lang: 'pt', text: 'esqueci minha senha' },
  { lang: 'pt', text: 'minha senha é muito fraca' },
  { lang: 'pt', text: 'o gerenciador de senhas que uso é o Bitwarden' },
  // Other scripts
  { lang: 'zh', text: '我忘了密码' },
  { lang: 'ja', text: 'パスワードを忘れました' },
];

/** The text as it must be stored: the secret replaced, everything else kept. */
export function expectedRedaction(p: SecretPhrasing): string {
  return p.redacted ?? p.text.split(p.secret).join('[secret withheld]');
}
