// Mobile numbers by market (PRODUCT.md §1): India 10 digits starting 6-9 (+91); Indonesia 08…, 10 to 13
// digits (+62). libphonenumber-js parses the prefixes people type or paste (+91, 91, 0, +62, 62), formats
// as they type, and checks the length is possible for the country; the market rule on top is the server's
// own (docs/API-BORROWER.md), so the client never refuses a number the server would take.
// Its min metadata is cut to our two countries (metadata.json, from `npm run gen:phone-metadata`).
import {
  formatIncompletePhoneNumber as formatIncomplete,
  parsePhoneNumberFromString as parse,
  type CountryCode,
  type MetadataJson,
} from 'libphonenumber-js/core';
import type { MarketId } from '../market/market';
import metadataJson from './metadata.json';

const metadata = metadataJson as unknown as MetadataJson;

interface PhoneRule {
  country: CountryCode;
  callingCode: string;
  /** Digits as a person writes the number at home: India without a 0, Indonesia with its leading 0. */
  nationalDigits: RegExp;
  maxDigits: number;
}

const RULES: Record<MarketId, PhoneRule> = {
  in: { country: 'IN', callingCode: '91', nationalDigits: /^[6-9]\d{9}$/, maxDigits: 10 },
  id: { country: 'ID', callingCode: '62', nationalDigits: /^08\d{8,11}$/, maxDigits: 13 },
};

/** The number as digits written at home, with a pasted or typed country prefix taken off. */
export function phoneDigits(input: string, market: MarketId): string {
  const rule = RULES[market];
  let digits = input.replace(/\D/g, '');
  const international = input.trim().startsWith('+');
  if (market === 'in') {
    // Only a whole prefixed number loses its prefix: one digit too many on a number that happens to
    // start with 91 is capped, not cut short.
    if (digits.startsWith(rule.callingCode) && (international || digits.length === rule.maxDigits + 2)) digits = digits.slice(2);
    else if (digits.startsWith('0') && digits.length === rule.maxDigits + 1) digits = digits.slice(1);
  } else if (digits.startsWith(`${rule.callingCode}8`)) {
    digits = `0${digits.slice(2)}`;
  }
  return digits.slice(0, rule.maxDigits);
}

/** A number typed with `+` and another country's calling code. */
function isForeign(input: string, market: MarketId): boolean {
  return input.trim().startsWith('+') && !input.replace(/\D/g, '').startsWith(RULES[market].callingCode);
}

/**
 * What the phone input shows while a person types: `98765 43210`, `0812-3456-7890`. A `+` stays while the
 * country code is being typed; once the market's code is complete the number shows as at home (the code is
 * beside the field). Another country's number stays as typed, and `checkPhone` refuses it.
 */
export function formatPhoneInput(input: string, market: MarketId): string {
  if (input.trim().startsWith('+')) {
    const typed = input.replace(/\D/g, '');
    if (RULES[market].callingCode.startsWith(typed)) return `+${typed}`;
    if (isForeign(input, market)) return `+${typed.slice(0, 15)}`;
  }
  const digits = phoneDigits(input, market);
  return digits ? formatIncomplete(digits, RULES[market].country, metadata) : '';
}

export type PhoneCheck = { ok: true; e164: string } | { ok: false; reason: 'required' | 'invalid' };

/** Checks a typed number against the market's rule; on success gives it in E.164 (`+919876543210`). */
export function checkPhone(input: string, market: MarketId): PhoneCheck {
  const rule = RULES[market];
  const digits = phoneDigits(input, market);
  if (!digits) return { ok: false, reason: 'required' };
  if (isForeign(input, market) || !rule.nationalDigits.test(digits)) return { ok: false, reason: 'invalid' };
  const parsed = parse(digits, rule.country, metadata);
  if (!parsed || parsed.countryCallingCode !== rule.callingCode || !parsed.isPossible()) return { ok: false, reason: 'invalid' };
  return { ok: true, e164: parsed.number };
}

/** Any phone number a person wrote (a landline too) in E.164 and as written internationally, read with `market`'s
 * country as the default when it has no `+` prefix; null when it is no possible Indian or Indonesian number (then it
 * is shown as written, with no link). */
export function phoneLink(input: string, market: MarketId | null): { e164: string; display: string } | null {
  const country = market ? RULES[market].country : undefined;
  const parsed = parse(input.trim(), country ? { defaultCountry: country } : {}, metadata);
  if (!parsed || !parsed.isPossible()) return null;
  return { e164: parsed.number, display: parsed.formatInternational() };
}
