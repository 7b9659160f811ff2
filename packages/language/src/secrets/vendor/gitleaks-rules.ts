/**
 * Issuers' key and token formats, from gitleaks' rule set (config/gitleaks.toml at commit
 * b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b), as data. Written by `scripts/vendor-gitleaks-rules.mjs`; do not edit by hand:
 * run the script on a newer gitleaks.toml instead. 216 rules of 222; left out:
 * - freemius-secret-key (file path)
 * - generic-api-key (generic)
 * - hashicorp-tf-password (file path)
 * - kubernetes-secret-yaml (file path)
 * - nuget-config-password (file path)
 * - pkcs12-file (no regex)
 *
 * gitleaks: https://github.com/gitleaks/gitleaks
 *
 * MIT License
 *
 * Copyright (c) 2019 Zachary Rice
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of this software
 * and associated documentation files (the "Software"), to deal in the Software without
 * restriction, including without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
 * Software is furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all copies or
 * substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
 * BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 * NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 * DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 *
 * @module
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: regex sources, not templates
import type { VendorRule } from './rule.js';

/** gitleaks' rules, translated to JavaScript regex sources (no flags; matched with `gud`). */
export const GITLEAKS_RULES: readonly VendorRule[] = [
  {
    id: '1password-secret-key',
    kind: 'password',
    source:
      '\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b',
    keywords: ['a3-'],
    entropy: 3.8,
  },
  {
    id: '1password-service-account-token',
    kind: 'password',
    source: 'ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}',
    keywords: ['ops_'],
    entropy: 4,
  },
  {
    id: 'adafruit-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][dD][aA][fF][rR][uU][iI][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9_-]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['adafruit'],
  },
  {
    id: 'adobe-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][dD][oO][bB][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['adobe'],
    entropy: 2,
  },
  {
    id: 'adobe-client-secret',
    kind: 'api key',
    source: '\\b(p8e-[a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['p8e-'],
    entropy: 2,
  },
  {
    id: 'age-secret-key',
    kind: 'api key',
    source: 'AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}',
    keywords: ['age-secret-key-1'],
  },
  {
    id: 'airtable-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][iI][rR][tT][aA][bB][lL][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{17})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['airtable'],
  },
  {
    id: 'airtable-personnal-access-token',
    kind: 'token',
    source: '\\b(pat[a-zA-Z0-9]{14}\\.[a-f0-9]{64})\\b',
    keywords: ['airtable'],
  },
  {
    id: 'algolia-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][lL][gG][oO][lL][iI][aA])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['algolia'],
  },
  {
    id: 'alibaba-access-key-id',
    kind: 'api key',
    source: '\\b(LTAI[a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['ltai'],
    entropy: 2,
  },
  {
    id: 'alibaba-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][lL][iI][bB][aA][bB][aA])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['alibaba'],
    entropy: 2,
  },
  {
    id: 'anthropic-admin-api-key',
    kind: 'api key',
    source: '\\b(sk-ant-admin01-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sk-ant-admin01'],
  },
  {
    id: 'anthropic-api-key',
    kind: 'api key',
    source: '\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sk-ant-api03'],
  },
  {
    id: 'artifactory-api-key',
    kind: 'api key',
    source: '\\bAKCp[A-Za-z0-9]{69}\\b',
    keywords: ['akcp'],
    entropy: 4.5,
  },
  {
    id: 'artifactory-reference-token',
    kind: 'token',
    source: '\\bcmVmd[A-Za-z0-9]{59}\\b',
    keywords: ['cmvmd'],
    entropy: 4.5,
  },
  {
    id: 'asana-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][sS][aA][nN][aA])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['asana'],
  },
  {
    id: 'asana-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[aA][sS][aA][nN][aA])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['asana'],
  },
  {
    id: 'atlassian-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:(?:ATLASSIAN|[Aa]tlassian)|(?:CONFLUENCE|[Cc]onfluence)|(?:JIRA|[Jj]ira))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{20}[a-fA-F0-9]{4})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)|\\b([aA][tT][aA][tT][tT]3[A-Za-za-zA-Z0-9_\\-=]{186})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['atlassian', 'confluence', 'jira', 'atatt3'],
    entropy: 3.5,
  },
  {
    id: 'authress-service-client-access-key',
    kind: 'api key',
    source:
      '\\b((?:sc|ext|scauth|authress)_[a-zA-Z0-9]{5,30}\\.[a-zA-Z0-9]{4,6}\\.(?:acc)[_-][a-zA-Z0-9-]{10,32}\\.[a-zA-Z0-9+/_=-]{30,120})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sc_', 'ext_', 'scauth_', 'authress_'],
    entropy: 2,
  },
  {
    id: 'aws-access-token',
    kind: 'api key',
    source: '\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b',
    keywords: ['a3t', 'akia', 'asia', 'abia', 'acca'],
    entropy: 3,
    allow: ['.+EXAMPLE$'],
  },
  {
    id: 'aws-amazon-bedrock-api-key-long-lived',
    kind: 'api key',
    source: '\\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['absk'],
    entropy: 3,
  },
  {
    id: 'aws-amazon-bedrock-api-key-short-lived',
    kind: 'api key',
    source: 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t',
    keywords: ['bedrock-api-key-'],
    entropy: 3,
  },
  {
    id: 'azure-ad-client-secret',
    kind: 'api key',
    source:
      '(?:^|[\\\\\'"\\x60\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\\\\'"\\x60\\s<),])',
    keywords: ['q~'],
    entropy: 3,
  },
  {
    id: 'beamer-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[bB][eE][aA][mM][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([bB]_[a-zA-Z0-9=_\\-]{44})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['beamer'],
  },
  {
    id: 'bitbucket-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['bitbucket'],
  },
  {
    id: 'bitbucket-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['bitbucket'],
  },
  {
    id: 'bittrex-access-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[bB][iI][tT][tT][rR][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['bittrex'],
  },
  {
    id: 'bittrex-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[bB][iI][tT][tT][rR][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['bittrex'],
  },
  {
    id: 'cisco-meraki-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Mm]eraki|MERAKI))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-f]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['meraki'],
    entropy: 3,
  },
  {
    id: 'clickhouse-cloud-api-secret-key',
    kind: 'api key',
    source: '\\b(4b1d[A-Za-z0-9]{38})\\b',
    keywords: ['4b1d'],
    entropy: 3,
  },
  {
    id: 'clojars-api-token',
    kind: 'token',
    source: '[cC][lL][oO][jJ][aA][rR][sS]_[a-zA-Z0-9]{60}',
    keywords: ['clojars_'],
    entropy: 2,
  },
  {
    id: 'cloudflare-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['cloudflare'],
    entropy: 2,
  },
  {
    id: 'cloudflare-global-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{37})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['cloudflare'],
    entropy: 2,
  },
  {
    id: 'cloudflare-origin-ca-key',
    kind: 'api key',
    source: '\\b(v1\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['cloudflare', 'v1.0-'],
    entropy: 2,
  },
  {
    id: 'codecov-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[cC][oO][dD][eE][cC][oO][vV])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['codecov'],
  },
  {
    id: 'cohere-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:[cC][oO][hH][eE][rR][eE]|[cC][oO]_[aA][pP][iI]_[kK][eE][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['cohere', 'co_api_key'],
    entropy: 4,
  },
  {
    id: 'coinbase-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[cC][oO][iI][nN][bB][aA][sS][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9_-]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['coinbase'],
  },
  {
    id: 'confluent-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['confluent'],
  },
  {
    id: 'confluent-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['confluent'],
  },
  {
    id: 'contentful-delivery-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[cC][oO][nN][tT][eE][nN][tT][fF][uU][lL])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{43})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['contentful'],
  },
  {
    id: 'curl-auth-header',
    kind: 'api key',
    source:
      '\\bcurl\\b(?:.*?|.*?(?:[\\r\\n]{1,2}.*?){1,5})[ \\t\\n\\r](?:-H|--header)(?:=|[ \\t]{0,5})(?:"(?:[aA][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\t]{0,5}(?:[bB][aA][sS][iI][cC][ \\t]([a-zA-Z0-9+/]{8,}={0,3})|(?:[bB][eE][aA][rR][eE][rR]|(?:[aA][pP][iI]-)?[tT][oO][kK][eE][nN])[ \\t]([\\w=~@.+/-]{8,})|([\\w=~@.+/-]{8,}))|(?:(?:[xX]-(?:[a-zA-Z]+-)?)?(?:[aA][pP][iI]-?)?(?:[kK][eE][yY]|[tT][oO][kK][eE][nN])):[ \\t]{0,5}([\\w=~@.+/-]{8,}))"|\'(?:[aA][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\t]{0,5}(?:[bB][aA][sS][iI][cC][ \\t]([a-zA-Z0-9+/]{8,}={0,3})|(?:[bB][eE][aA][rR][eE][rR]|(?:[aA][pP][iI]-)?[tT][oO][kK][eE][nN])[ \\t]([\\w=~@.+/-]{8,})|([\\w=~@.+/-]{8,}))|(?:(?:[xX]-(?:[a-zA-Z]+-)?)?(?:[aA][pP][iI]-?)?(?:[kK][eE][yY]|[tT][oO][kK][eE][nN])):[ \\t]{0,5}([\\w=~@.+/-]{8,}))\')(?:\\B|\\s|$)',
    keywords: ['curl'],
    entropy: 2.75,
  },
  {
    id: 'curl-auth-user',
    kind: 'api key',
    source:
      '\\bcurl\\b(?:.*|.*(?:[\\r\\n]{1,2}.*){1,5})[ \\t\\n\\r](?:-u|--user)(?:=|[ \\t]{0,5})("(:[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|\'([^:\']{3,}:[^\']{3,})\'|((?:"[^"]{3,}"|\'[^\']{3,}\'|[\\w$@.-]+):(?:"[^"]{3,}"|\'[^\']{3,}\'|[\\w${}@.-]+)))(?:\\s|$)',
    keywords: ['curl'],
    entropy: 2,
    allow: [
      '[^:]+:(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\\*+|x+)',
      '[\'"]?<[^>]+>[\'"]?:[\'"]?<[^>]+>|<[^:]+:[^>]+>[\'"]?',
      '[^:]+:\\[[^\\]]+\\]',
      '[\'"]?[^:]+[\'"]?:[\'"]?\\$(?:\\d|\\w+|\\{(?:\\d|\\w+)\\})[\'"]?',
      '\\$\\([^)]+\\):\\$\\([^)]+\\)',
      '[\'"]?\\$?\\{\\{[^}]+\\}\\}[\'"]?:[\'"]?\\$?\\{\\{[^}]+\\}\\}[\'"]?',
    ],
  },
  {
    id: 'databricks-api-token',
    kind: 'token',
    source: '\\b(dapi[a-f0-9]{32}(?:-\\d)?)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['dapi'],
    entropy: 3,
  },
  {
    id: 'datadog-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][aA][tT][aA][dD][oO][gG])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['datadog'],
  },
  {
    id: 'defined-networking-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][nN][kK][eE][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([dD][nN][kK][eE][yY]-[a-zA-Z0-9=_\\-]{26}-[a-zA-Z0-9=_\\-]{52})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['dnkey'],
  },
  {
    id: 'digitalocean-access-token',
    kind: 'token',
    source: '\\b(doo_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['doo_v1_'],
    entropy: 3,
  },
  {
    id: 'digitalocean-pat',
    kind: 'token',
    source: '\\b(dop_v1_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['dop_v1_'],
    entropy: 3,
  },
  {
    id: 'digitalocean-refresh-token',
    kind: 'token',
    source: '\\b([dD][oO][rR]_[vV]1_[a-fA-F0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['dor_v1_'],
  },
  {
    id: 'discord-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['discord'],
  },
  {
    id: 'discord-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{18})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['discord'],
    entropy: 2,
  },
  {
    id: 'discord-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['discord'],
    entropy: 2,
  },
  {
    id: 'doppler-api-token',
    kind: 'token',
    source: 'dp\\.pt\\.[a-zA-Z0-9]{43}',
    keywords: ['dp.pt.'],
    entropy: 2,
  },
  {
    id: 'droneci-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][rR][oO][nN][eE][cC][iI])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['droneci'],
  },
  {
    id: 'dropbox-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{15})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['dropbox'],
  },
  {
    id: 'dropbox-long-lived-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{11}([aA][aA][aA][aA][aA][aA][aA][aA][aA][aA])[a-zA-Z0-9\\-_=]{43})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['dropbox'],
  },
  {
    id: 'dropbox-short-lived-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([sS][lL]\\.[a-zA-Z0-9\\-=_]{135})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['dropbox'],
  },
  {
    id: 'duffel-api-token',
    kind: 'token',
    source: 'duffel_(?:test|live)_[a-zA-Z0-9_\\-=]{43}',
    keywords: ['duffel_'],
    entropy: 2,
  },
  {
    id: 'dynatrace-api-token',
    kind: 'token',
    source: 'dt0c01\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{64}',
    keywords: ['dt0c01.'],
    entropy: 4,
  },
  {
    id: 'easypost-api-token',
    kind: 'token',
    source: '\\bEZAK[a-zA-Z0-9]{54}\\b',
    keywords: ['ezak'],
    entropy: 2,
  },
  {
    id: 'easypost-test-api-token',
    kind: 'token',
    source: '\\bEZTK[a-zA-Z0-9]{54}\\b',
    keywords: ['eztk'],
    entropy: 2,
  },
  {
    id: 'etsy-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:(?:ETSY|[Ee]tsy))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['etsy'],
    entropy: 3,
  },
  {
    id: 'facebook-access-token',
    kind: 'token',
    source: '\\b(\\d{15,16}(\\||%)[0-9a-zA-Z\\-_]{27,40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['facebook'],
    entropy: 3,
  },
  {
    id: 'facebook-page-access-token',
    kind: 'token',
    source: '\\b(EAA[MC][a-zA-Z0-9]{100,})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['eaam', 'eaac'],
    entropy: 4,
  },
  {
    id: 'facebook-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[fF][aA][cC][eE][bB][oO][oO][kK])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['facebook'],
    entropy: 3,
  },
  {
    id: 'fastly-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[fF][aA][sS][tT][lL][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['fastly'],
  },
  {
    id: 'finicity-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['finicity'],
  },
  {
    id: 'finicity-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['finicity'],
  },
  {
    id: 'finnhub-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[fF][iI][nN][nN][hH][uU][bB])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['finnhub'],
  },
  {
    id: 'flickr-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[fF][lL][iI][cC][kK][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['flickr'],
  },
  {
    id: 'flutterwave-encryption-key',
    kind: 'api key',
    source: 'FLWSECK_TEST-[a-hA-H0-9]{12}',
    keywords: ['flwseck_test'],
    entropy: 2,
  },
  {
    id: 'flutterwave-public-key',
    kind: 'api key',
    source: 'FLWPUBK_TEST-[a-hA-H0-9]{32}-[xX]',
    keywords: ['flwpubk_test'],
    entropy: 2,
  },
  {
    id: 'flutterwave-secret-key',
    kind: 'api key',
    source: 'FLWSECK_TEST-[a-hA-H0-9]{32}-[xX]',
    keywords: ['flwseck_test'],
    entropy: 2,
  },
  {
    id: 'flyio-access-token',
    kind: 'token',
    source:
      '\\b((?:fo1_[\\w-]{43}|fm1[ar]_[a-zA-Z0-9+\\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\\/]{100,}={0,3}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['fo1_', 'fm1', 'fm2_'],
    entropy: 4,
  },
  {
    id: 'frameio-api-token',
    kind: 'token',
    source: 'fio-u-[a-zA-Z0-9\\-_=]{64}',
    keywords: ['fio-u-'],
  },
  {
    id: 'freshbooks-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[fF][rR][eE][sS][hH][bB][oO][oO][kK][sS])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['freshbooks'],
  },
  {
    id: 'gcp-api-key',
    kind: 'api key',
    source: '\\b(AIza[\\w-]{35})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['aiza'],
    entropy: 4,
    allow: [
      'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
      'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
      'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
      'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
      'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
      'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
      'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
      'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
      'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
      'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
      'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
      'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
      'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
      'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
      'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
      'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
    ],
  },
  {
    id: 'github-app-token',
    kind: 'token',
    source: '(?:ghu|ghs)_[0-9a-zA-Z]{36}',
    keywords: ['ghu_', 'ghs_'],
    entropy: 3,
  },
  {
    id: 'github-fine-grained-pat',
    kind: 'token',
    source: 'github_pat_\\w{82}',
    keywords: ['github_pat_'],
    entropy: 3,
  },
  {
    id: 'github-oauth',
    kind: 'token',
    source: 'gho_[0-9a-zA-Z]{36}',
    keywords: ['gho_'],
    entropy: 3,
  },
  {
    id: 'github-pat',
    kind: 'token',
    source: 'ghp_[0-9a-zA-Z]{36}',
    keywords: ['ghp_'],
    entropy: 3,
  },
  {
    id: 'github-refresh-token',
    kind: 'token',
    source: 'ghr_[0-9a-zA-Z]{36}',
    keywords: ['ghr_'],
    entropy: 3,
  },
  {
    id: 'gitlab-cicd-job-token',
    kind: 'token',
    source: 'glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}',
    keywords: ['glcbt-'],
    entropy: 3,
  },
  {
    id: 'gitlab-deploy-token',
    kind: 'token',
    source: 'gldt-[0-9a-zA-Z_\\-]{20}',
    keywords: ['gldt-'],
    entropy: 3,
  },
  {
    id: 'gitlab-feature-flag-client-token',
    kind: 'token',
    source: 'glffct-[0-9a-zA-Z_\\-]{20}',
    keywords: ['glffct-'],
    entropy: 3,
  },
  {
    id: 'gitlab-feed-token',
    kind: 'token',
    source: 'glft-[0-9a-zA-Z_\\-]{20}',
    keywords: ['glft-'],
    entropy: 3,
  },
  {
    id: 'gitlab-incoming-mail-token',
    kind: 'token',
    source: 'glimt-[0-9a-zA-Z_\\-]{25}',
    keywords: ['glimt-'],
    entropy: 3,
  },
  {
    id: 'gitlab-kubernetes-agent-token',
    kind: 'token',
    source: 'glagent-[0-9a-zA-Z_\\-]{50}',
    keywords: ['glagent-'],
    entropy: 3,
  },
  {
    id: 'gitlab-oauth-app-secret',
    kind: 'api key',
    source: 'gloas-[0-9a-zA-Z_\\-]{64}',
    keywords: ['gloas-'],
    entropy: 3,
  },
  {
    id: 'gitlab-pat',
    kind: 'token',
    source: 'glpat-[\\w-]{20}',
    keywords: ['glpat-'],
    entropy: 3,
  },
  {
    id: 'gitlab-pat-routable',
    kind: 'token',
    source: '\\bglpat-[0-9a-zA-Z_-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b',
    keywords: ['glpat-'],
    entropy: 4,
  },
  {
    id: 'gitlab-ptt',
    kind: 'api key',
    source: 'glptt-[0-9a-f]{40}',
    keywords: ['glptt-'],
    entropy: 3,
  },
  {
    id: 'gitlab-rrt',
    kind: 'api key',
    source: 'GR1348941[\\w-]{20}',
    keywords: ['gr1348941'],
    entropy: 3,
  },
  {
    id: 'gitlab-runner-authentication-token',
    kind: 'token',
    source: 'glrt-[0-9a-zA-Z_\\-]{20}',
    keywords: ['glrt-'],
    entropy: 3,
  },
  {
    id: 'gitlab-runner-authentication-token-routable',
    kind: 'token',
    source: '\\bglrt-t\\d_[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b',
    keywords: ['glrt-'],
    entropy: 4,
  },
  {
    id: 'gitlab-scim-token',
    kind: 'token',
    source: 'glsoat-[0-9a-zA-Z_\\-]{20}',
    keywords: ['glsoat-'],
    entropy: 3,
  },
  {
    id: 'gitlab-session-cookie',
    kind: 'api key',
    source: '_gitlab_session=[0-9a-z]{32}',
    keywords: ['_gitlab_session='],
    entropy: 3,
  },
  {
    id: 'gitter-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[gG][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9_-]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['gitter'],
  },
  {
    id: 'gocardless-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[gG][oO][cC][aA][rR][dD][lL][eE][sS][sS])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([lL][iI][vV][eE]_[a-zA-Z0-9\\-_=]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['live_', 'gocardless'],
  },
  {
    id: 'grafana-api-key',
    kind: 'api key',
    source:
      '\\b([eE][yY][jJ][rR][iI][jJ][oO][iI][A-Za-za-zA-Z0-9]{70,400}={0,3})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['eyjrijoi'],
    entropy: 3,
  },
  {
    id: 'grafana-cloud-api-token',
    kind: 'token',
    source: '\\b([gG][lL][cC]_[A-Za-za-zA-Z0-9+/]{32,400}={0,3})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['glc_'],
    entropy: 3,
  },
  {
    id: 'grafana-service-account-token',
    kind: 'token',
    source:
      '\\b([gG][lL][sS][aA]_[A-Za-za-zA-Z0-9]{32}_[A-Fa-fa-fA-F0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['glsa_'],
    entropy: 3,
  },
  {
    id: 'harness-api-key',
    kind: 'api key',
    source: '(?:pat|sat)\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{20}',
    keywords: ['pat.', 'sat.'],
  },
  {
    id: 'hashicorp-tf-api-token',
    kind: 'token',
    source: '[a-zA-Z0-9]{14}\\.(?:atlasv1)\\.[a-zA-Z0-9\\-_=]{60,70}',
    keywords: ['atlasv1'],
    entropy: 3.5,
  },
  {
    id: 'heroku-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[hH][eE][rR][oO][kK][uU])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['heroku'],
  },
  {
    id: 'heroku-api-key-v2',
    kind: 'api key',
    source: '\\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['hrku-aa'],
    entropy: 4,
  },
  {
    id: 'hubspot-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[hH][uU][bB][sS][pP][oO][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['hubspot'],
  },
  {
    id: 'huggingface-access-token',
    kind: 'token',
    source: '\\b(hf_(?:[a-zA-Z]{34}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['hf_'],
    entropy: 2,
  },
  {
    id: 'huggingface-organization-api-token',
    kind: 'token',
    source: '\\b(api_org_(?:[a-zA-Z]{34}))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['api_org_'],
    entropy: 2,
  },
  {
    id: 'infracost-api-token',
    kind: 'token',
    source: '\\b(ico-[a-zA-Z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['ico-'],
    entropy: 3,
  },
  {
    id: 'intercom-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[iI][nN][tT][eE][rR][cC][oO][mM])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{60})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['intercom'],
  },
  {
    id: 'intra42-client-secret',
    kind: 'api key',
    source: '\\b(s-s4t2(?:ud|af)-[aAbBcCdDeEfF0123456789]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['intra', 's-s4t2ud-', 's-s4t2af-'],
    entropy: 3,
  },
  {
    id: 'jfrog-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]|[bB][iI][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{73})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['jfrog', 'artifactory', 'bintray', 'xray'],
  },
  {
    id: 'jfrog-identity-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]|[bB][iI][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['jfrog', 'artifactory', 'bintray', 'xray'],
  },
  {
    id: 'jwt',
    kind: 'token',
    source:
      '\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9\\/\\\\_-]{17,}\\.(?:[a-zA-Z0-9\\/\\\\_-]{10,}={0,2})?)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['ey'],
    entropy: 3,
  },
  {
    id: 'jwt-base64',
    kind: 'token',
    source:
      '\\bZXlK(?:(?<alg>aGJHY2lPaU)|(?<apu>aGNIVWlPaU)|(?<apv>aGNIWWlPaU)|(?<aud>aGRXUWlPaU)|(?<b64>aU5qUWlP)|(?<crit>amNtbDBJanBi)|(?<cty>amRIa2lPaU)|(?<epk>bGNHc2lPbn)|(?<enc>bGJtTWlPaU)|(?<jku>cWEzVWlPaU)|(?<jwk>cWQyc2lPb)|(?<iss>cGMzTWlPaU)|(?<iv>cGRpSTZJ)|(?<kid>cmFXUWlP)|(?<key_ops>clpYbGZiM0J6SWpwY)|(?<kty>cmRIa2lPaUp)|(?<nonce>dWIyNWpaU0k2)|(?<p2c>d01tTWlP)|(?<p2s>d01uTWlPaU)|(?<ppt>d2NIUWlPaU)|(?<sub>emRXSWlPaU)|(?<svt>emRuUWlP)|(?<tag>MFlXY2lPaU)|(?<typ>MGVYQWlPaUp)|(?<url>MWNtd2l)|(?<use>MWMyVWlPaUp)|(?<ver>MlpYSWlPaU)|(?<version>MlpYSnphVzl1SWpv)|(?<x>NElqb2)|(?<x5c>NE5XTWlP)|(?<x5t>NE5YUWlPaU)|(?<x5ts256>NE5YUWpVekkxTmlJNkl)|(?<x5u>NE5YVWlPaU)|(?<zip>NmFYQWlPaU))[a-zA-Z0-9\\/\\\\_+\\-\\r\\n]{40,}={0,2}',
    keywords: ['zxlk'],
    entropy: 2,
  },
  {
    id: 'kraken-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[kK][rR][aA][kK][eE][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9\\/=_+\\-]{80,90})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['kraken'],
  },
  {
    id: 'kucoin-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[kK][uU][cC][oO][iI][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['kucoin'],
  },
  {
    id: 'kucoin-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[kK][uU][cC][oO][iI][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['kucoin'],
  },
  {
    id: 'launchdarkly-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[lL][aA][uU][nN][cC][hH][dD][aA][rR][kK][lL][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['launchdarkly'],
  },
  {
    id: 'linear-api-key',
    kind: 'api key',
    source: 'lin_api_[a-zA-Z0-9]{40}',
    keywords: ['lin_api_'],
    entropy: 2,
  },
  {
    id: 'linear-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][iI][nN][eE][aA][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['linear'],
    entropy: 2,
  },
  {
    id: 'linkedin-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][iI][nN][kK][eE][dD][_-]?[iI][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{14})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['linkedin', 'linked_in', 'linked-in'],
    entropy: 2,
  },
  {
    id: 'linkedin-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][iI][nN][kK][eE][dD][_-]?[iI][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['linkedin', 'linked_in', 'linked-in'],
    entropy: 2,
  },
  {
    id: 'lob-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][oO][bB])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(([lL][iI][vV][eE]|[tT][eE][sS][tT])_[a-fA-F0-9]{35})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['test_', 'live_'],
  },
  {
    id: 'lob-pub-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][oO][bB])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(([tT][eE][sS][tT]|[lL][iI][vV][eE])_[pP][uU][bB]_[a-fA-F0-9]{31})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['test_pub', 'live_pub', '_pub'],
  },
  {
    id: 'looker-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][oO][oO][kK][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['looker'],
  },
  {
    id: 'looker-client-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[lL][oO][oO][kK][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['looker'],
  },
  {
    id: 'mailchimp-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][iI][lL][cC][hH][iI][mM][pP][sS][dD][kK].[iI][nN][iI][tT][iI][aA][lL][iI][zZ][eE]|[mM][aA][iI][lL][cC][hH][iI][mM][pP])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{32}-[uU][sS]\\d\\d)(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mailchimp'],
  },
  {
    id: 'mailgun-private-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([kK][eE][yY]-[a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mailgun'],
  },
  {
    id: 'mailgun-pub-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([pP][uU][bB][kK][eE][yY]-[a-fA-F0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mailgun'],
  },
  {
    id: 'mailgun-signing-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-hA-H0-9]{32}-[a-hA-H0-9]{8}-[a-hA-H0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mailgun'],
  },
  {
    id: 'mapbox-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([pP][kK]\\.[a-zA-Z0-9]{60}\\.[a-zA-Z0-9]{22})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mapbox'],
  },
  {
    id: 'mattermost-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[mM][aA][tT][tT][eE][rR][mM][oO][sS][tT])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{26})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['mattermost'],
  },
  {
    id: 'maxmind-license-key',
    kind: 'api key',
    source: '\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['_mmk'],
    entropy: 4,
  },
  {
    id: 'messagebird-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[mM][eE][sS][sS][aA][gG][eE][_-]?[bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{25})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['messagebird', 'message-bird', 'message_bird'],
  },
  {
    id: 'messagebird-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[mM][eE][sS][sS][aA][gG][eE][_-]?[bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['messagebird', 'message-bird', 'message_bird'],
  },
  {
    id: 'microsoft-teams-webhook',
    kind: 'api key',
    source:
      'https://[a-z0-9]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}',
    keywords: ['webhook.office.com', 'webhookb2', 'incomingwebhook'],
  },
  {
    id: 'netlify-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[nN][eE][tT][lL][iI][fF][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{40,46})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['netlify'],
  },
  {
    id: 'new-relic-browser-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([nN][rR][jJ][sS]-[a-fA-F0-9]{19})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['nrjs-'],
  },
  {
    id: 'new-relic-insert-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([nN][rR][iI][iI]-[a-zA-Z0-9-]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['nrii-'],
  },
  {
    id: 'new-relic-user-api-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['new-relic', 'newrelic', 'new_relic'],
  },
  {
    id: 'new-relic-user-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([nN][rR][aA][kK]-[a-zA-Z0-9]{27})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['nrak'],
  },
  {
    id: 'notion-api-token',
    kind: 'token',
    source: '\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['ntn_'],
    entropy: 4,
  },
  {
    id: 'npm-access-token',
    kind: 'token',
    source: '\\b([nN][pP][mM]_[a-zA-Z0-9]{36})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['npm_'],
    entropy: 2,
  },
  {
    id: 'nytimes-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[nN][yY][tT][iI][mM][eE][sS]|[nN][eE][wW]-[yY][oO][rR][kK]-[tT][iI][mM][eE][sS],|[nN][eE][wW][yY][oO][rR][kK][tT][iI][mM][eE][sS])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['nytimes', 'new-york-times', 'newyorktimes'],
  },
  {
    id: 'octopus-deploy-api-key',
    kind: 'api key',
    source: '\\b(API-[A-Z0-9]{26})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['api-'],
    entropy: 3,
  },
  {
    id: 'okta-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Oo]kta|OKTA))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(00[\\w=\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['okta'],
    entropy: 4,
  },
  {
    id: 'openai-api-key',
    kind: 'api key',
    source:
      '\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['t3blbkfj'],
    entropy: 3,
  },
  {
    id: 'openshift-user-token',
    kind: 'token',
    source: '\\b(sha256~[\\w-]{43})(?:[^\\w-]|$)',
    keywords: ['sha256~'],
    entropy: 3.5,
  },
  {
    id: 'perplexity-api-key',
    kind: 'api key',
    source: '\\b(pplx-[a-zA-Z0-9]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$|\\b)',
    keywords: ['pplx-'],
    entropy: 4,
  },
  {
    id: 'plaid-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([aA][cC][cC][eE][sS][sS]-(?:[sS][aA][nN][dD][bB][oO][xX]|[dD][eE][vV][eE][lL][oO][pP][mM][eE][nN][tT]|[pP][rR][oO][dD][uU][cC][tT][iI][oO][nN])-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['plaid'],
  },
  {
    id: 'plaid-client-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['plaid'],
    entropy: 3.5,
  },
  {
    id: 'plaid-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['plaid'],
    entropy: 3.5,
  },
  {
    id: 'planetscale-api-token',
    kind: 'token',
    source: '\\b(pscale_tkn_[\\w=.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['pscale_tkn_'],
    entropy: 3,
  },
  {
    id: 'planetscale-oauth-token',
    kind: 'token',
    source: '\\b(pscale_oauth_[\\w=.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['pscale_oauth_'],
    entropy: 3,
  },
  {
    id: 'planetscale-password',
    kind: 'password',
    source: '\\b([pP][sS][cC][aA][lL][eE]_[pP][wW]_[\\w=.-]{32,64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['pscale_pw_'],
    entropy: 3,
  },
  {
    id: 'postman-api-token',
    kind: 'token',
    source: '\\b(PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['pmak-'],
    entropy: 3,
  },
  {
    id: 'prefect-api-token',
    kind: 'token',
    source: '\\b(pnu_[a-zA-Z0-9]{36})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['pnu_'],
    entropy: 2,
  },
  {
    id: 'private-key',
    kind: 'private key',
    source:
      '-----[bB][eE][gG][iI][nN][ A-Za-z0-9_-]{0,100}[pP][rR][iI][vV][aA][tT][eE] [kK][eE][yY](?: [bB][lL][oO][cC][kK])?-----[\\s\\S-]{64,}?[kK][eE][yY](?: [bB][lL][oO][cC][kK])?-----',
    keywords: ['-----begin'],
  },
  {
    id: 'privateai-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:[pP][rR][iI][vV][aA][tT][eE][_-]?[aA][iI])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['privateai', 'private_ai', 'private-ai'],
    entropy: 3,
  },
  {
    id: 'pulumi-api-token',
    kind: 'token',
    source: '\\b(pul-[a-f0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['pul-'],
    entropy: 2,
  },
  {
    id: 'pypi-upload-token',
    kind: 'token',
    source: 'pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}',
    keywords: ['pypi-ageichlwas5vcmc'],
    entropy: 3,
  },
  {
    id: 'rapidapi-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[rR][aA][pP][iI][dD][aA][pP][iI])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9_-]{50})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['rapidapi'],
  },
  {
    id: 'readme-api-token',
    kind: 'token',
    source: '\\b(rdme_[a-z0-9]{70})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['rdme_'],
    entropy: 2,
  },
  {
    id: 'rubygems-api-token',
    kind: 'token',
    source: '\\b(rubygems_[a-f0-9]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['rubygems_'],
    entropy: 2,
  },
  {
    id: 'scalingo-api-token',
    kind: 'token',
    source: '\\b(tk-us-[\\w-]{48})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['tk-us-'],
    entropy: 2,
  },
  {
    id: 'sendbird-access-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sendbird'],
  },
  {
    id: 'sendbird-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sendbird'],
  },
  {
    id: 'sendgrid-api-token',
    kind: 'token',
    source: '\\b(SG\\.[a-zA-Z0-9=_\\-.]{66})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sg.'],
    entropy: 2,
  },
  {
    id: 'sendinblue-api-token',
    kind: 'token',
    source: '\\b(xkeysib-[a-f0-9]{64}-[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['xkeysib-'],
    entropy: 2,
  },
  {
    id: 'sentry-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[sS][eE][nN][tT][rR][yY])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sentry'],
    entropy: 3,
  },
  {
    id: 'sentry-org-token',
    kind: 'token',
    source:
      '\\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|$)',
    keywords: ['sntrys_eyjpyxqio'],
    entropy: 4.5,
  },
  {
    id: 'sentry-user-token',
    kind: 'token',
    source: '\\b(sntryu_[a-f0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sntryu_'],
    entropy: 3.5,
  },
  {
    id: 'settlemint-application-access-token',
    kind: 'token',
    source: '\\b(sm_aat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sm_aat'],
    entropy: 3,
  },
  {
    id: 'settlemint-personal-access-token',
    kind: 'token',
    source: '\\b(sm_pat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sm_pat'],
    entropy: 3,
  },
  {
    id: 'settlemint-service-access-token',
    kind: 'token',
    source: '\\b(sm_sat_[a-zA-Z0-9]{16})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sm_sat'],
    entropy: 3,
  },
  {
    id: 'shippo-api-token',
    kind: 'token',
    source: '\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['shippo_'],
    entropy: 2,
  },
  {
    id: 'shopify-access-token',
    kind: 'token',
    source: 'shpat_[a-fA-F0-9]{32}',
    keywords: ['shpat_'],
    entropy: 2,
  },
  {
    id: 'shopify-custom-access-token',
    kind: 'token',
    source: 'shpca_[a-fA-F0-9]{32}',
    keywords: ['shpca_'],
    entropy: 2,
  },
  {
    id: 'shopify-private-app-access-token',
    kind: 'token',
    source: 'shppa_[a-fA-F0-9]{32}',
    keywords: ['shppa_'],
    entropy: 2,
  },
  {
    id: 'shopify-shared-secret',
    kind: 'api key',
    source: 'shpss_[a-fA-F0-9]{32}',
    keywords: ['shpss_'],
    entropy: 2,
  },
  {
    id: 'sidekiq-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[bB][uU][nN][dD][lL][eE]_[eE][nN][tT][eE][rR][pP][rR][iI][sS][eE]__[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS]__[cC][oO][mM]|[bB][uU][nN][dD][lL][eE]_[gG][eE][mM][sS]__[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS]__[cC][oO][mM])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-fA-F0-9]{8}:[a-fA-F0-9]{8})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['bundle_enterprise__contribsys__com', 'bundle_gems__contribsys__com'],
  },
  {
    id: 'sidekiq-sensitive-url',
    kind: 'api key',
    source:
      '\\b[hH][tT][tT][pP][sS]?://([a-fA-F0-9]{8}:[a-fA-F0-9]{8})@(?:[gG][eE][mM][sS].[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS].[cC][oO][mM]|[eE][nN][tT][eE][rR][pP][rR][iI][sS][eE].[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS].[cC][oO][mM])(?:[\\/|#|?|:]|$)',
    keywords: ['gems.contribsys.com', 'enterprise.contribsys.com'],
  },
  {
    id: 'slack-app-token',
    kind: 'token',
    source: '[xX][aA][pP][pP]-\\d-[A-Za-z0-9]+-\\d+-[a-zA-Z0-9]+',
    keywords: ['xapp'],
    entropy: 2,
  },
  {
    id: 'slack-bot-token',
    kind: 'token',
    source: 'xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*',
    keywords: ['xoxb'],
    entropy: 3,
  },
  {
    id: 'slack-config-access-token',
    kind: 'token',
    source: '[xX][oO][xX][eE].[xX][oO][xX][bBpP]-\\d-[A-Za-z0-9]{163,166}',
    keywords: ['xoxe.xoxb-', 'xoxe.xoxp-'],
    entropy: 2,
  },
  {
    id: 'slack-config-refresh-token',
    kind: 'token',
    source: '[xX][oO][xX][eE]-\\d-[A-Za-z0-9]{146}',
    keywords: ['xoxe-'],
    entropy: 2,
  },
  {
    id: 'slack-legacy-bot-token',
    kind: 'token',
    source: 'xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}',
    keywords: ['xoxb'],
    entropy: 2,
  },
  {
    id: 'slack-legacy-token',
    kind: 'token',
    source: 'xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+',
    keywords: ['xoxo', 'xoxs'],
    entropy: 2,
  },
  {
    id: 'slack-legacy-workspace-token',
    kind: 'token',
    source: 'xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}',
    keywords: ['xoxa', 'xoxr'],
    entropy: 2,
  },
  {
    id: 'slack-user-token',
    kind: 'token',
    source: 'xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}',
    keywords: ['xoxp-', 'xoxe-'],
    entropy: 2,
  },
  {
    id: 'slack-webhook-url',
    kind: 'api key',
    source: '(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}',
    keywords: ['hooks.slack.com'],
  },
  {
    id: 'snyk-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[sS][nN][yY][kK][_.-]?(?:(?:[aA][pP][iI]|[oO][aA][uU][tT][hH])[_.-]?)?(?:[kK][eE][yY]|[tT][oO][kK][eE][nN]))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['snyk'],
  },
  {
    id: 'sonar-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[sS][oO][nN][aA][rR][_.-]?([lL][oO][gG][iI][nN]|[tT][oO][kK][eE][nN]))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}((?:[sS][qQ][uU]_|[sS][qQ][pP]_|[sS][qQ][aA]_)?[a-zA-Z0-9=_\\-]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sonar'],
    secretGroup: 2,
  },
  {
    id: 'sourcegraph-access-token',
    kind: 'token',
    source:
      '\\b(\\b([sS][gG][pP]_(?:[a-fA-FA-Fa-f0-9]{16}|[lL][oO][cC][aA][lL])_[a-fA-FA-Fa-f0-9]{40}|[sS][gG][pP]_[a-fA-FA-Fa-f0-9]{40}|[a-fA-FA-Fa-f0-9]{40})\\b)(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sgp_', 'sourcegraph'],
    entropy: 3,
  },
  {
    id: 'square-access-token',
    kind: 'token',
    source: '\\b((?:EAAA|sq0atp-)[\\w-]{22,60})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sq0atp-', 'eaaa'],
    entropy: 2,
  },
  {
    id: 'squarespace-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[sS][qQ][uU][aA][rR][eE][sS][pP][aA][cC][eE])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['squarespace'],
  },
  {
    id: 'stripe-access-token',
    kind: 'token',
    source: '\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sk_test', 'sk_live', 'sk_prod', 'rk_test', 'rk_live', 'rk_prod'],
    entropy: 2,
  },
  {
    id: 'sumologic-access-id',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}(su[a-zA-Z0-9]{12})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['sumo'],
    entropy: 3,
  },
  {
    id: 'sumologic-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['sumo'],
    entropy: 3,
  },
  {
    id: 'telegram-bot-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][eE][lL][eE][gG][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{5,16}:(?:A)[a-zA-Z0-9_\\-]{34})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['telegr'],
  },
  {
    id: 'travisci-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][rR][aA][vV][iI][sS])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{22})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['travis'],
  },
  {
    id: 'twilio-api-key',
    kind: 'api key',
    source: 'SK[0-9a-fA-F]{32}',
    keywords: ['sk'],
    entropy: 3,
  },
  {
    id: 'twitch-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][cC][hH])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitch'],
  },
  {
    id: 'twitter-access-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{45})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitter'],
  },
  {
    id: 'twitter-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([0-9]{15,25}-[a-zA-ZA-Za-z0-9]{20,40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitter'],
  },
  {
    id: 'twitter-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{25})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitter'],
  },
  {
    id: 'twitter-api-secret',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{50})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitter'],
  },
  {
    id: 'twitter-bearer-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([aA]{22}[a-zA-ZA-Za-z0-9%]{80,100})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['twitter'],
  },
  {
    id: 'typeform-api-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[tT][yY][pP][eE][fF][oO][rR][mM])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([tT][fF][pP]_[a-zA-Z0-9\\-_.=]{59})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['tfp_'],
  },
  {
    id: 'vault-batch-token',
    kind: 'token',
    source: '\\b(hvb\\.[\\w-]{138,300})(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['hvb.'],
    entropy: 4,
  },
  {
    id: 'vault-service-token',
    kind: 'token',
    source: '\\b((?:hvs\\.[\\w-]{90,120}|s\\.(?:[a-zA-Z0-9]{24})))(?:[\\x60\'"\\s;]|\\\\[nr]|$)',
    keywords: ['hvs.', 's.'],
    entropy: 3.5,
    allow: ['s\\.[A-Za-z]{24}'],
  },
  {
    id: 'yandex-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([tT]1\\.[A-Za-z0-9a-zA-Z_-]+[=]{0,2}\\.[A-Za-z0-9a-zA-Z_-]{86}[=]{0,2})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['yandex'],
  },
  {
    id: 'yandex-api-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([aA][qQ][vV][nN][A-Za-za-zA-Z0-9_\\-]{35,38})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['yandex'],
  },
  {
    id: 'yandex-aws-access-token',
    kind: 'token',
    source:
      '[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([yY][cC][a-zA-ZA-Za-z0-9_\\-]{38})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['yandex'],
  },
  {
    id: 'zendesk-secret-key',
    kind: 'api key',
    source:
      '[\\w.-]{0,50}?(?:[zZ][eE][nN][dD][eE][sS][kK])(?:[ \\t\\w.-]{0,20})[\\s\'"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60\'"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60\'"\\s;]|\\\\[nNrR]|$)',
    keywords: ['zendesk'],
  },
];
