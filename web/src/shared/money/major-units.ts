// Amounts typed in major units ("3,500.25", "2500.5") ↔ minor units, with integer arithmetic only (PRODUCT.md §3):
// the whole part and the fraction are read as separate integers, never as a binary fraction. The borrower's money
// keyboard and the console's amount fields both read and prefill through these two.

export interface MajorTextRules {
  /** Grouping commas and spaces allowed and ignored (`1,00,000`, `1 000 000`): the console's typed fields. */
  grouping?: boolean;
  /** Digits before the point; 15 keeps every amount that fits within a safe integer of minor units. */
  maxIntegerDigits?: number;
}

/**
 * Major units → minor units, exactly: "12.5" is 1250, "12.05" is 1205, "0." is 0; `null` for nothing typed, a third
 * decimal, a sign, an exponent, or an amount beyond a safe integer.
 */
export function minorFromMajor(text: string, rules: MajorTextRules = {}): number | null {
  const maxInteger = rules.maxIntegerDigits ?? 15;
  const plain = rules.grouping ? text.trim().replace(/[,\s]/g, '') : text;
  const match = /^(\d*)(?:\.(\d{0,2}))?$/.exec(plain);
  if (!match || plain === '' || plain === '.' || match[1]!.length > maxInteger) return null;
  const minor = BigInt(match[1] || '0') * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : null;
}

/**
 * Minor units → the major amount that types them back: 350025 is "3500.25", 350000 is "3500", 5 is "0.05"; with
 * `shortest`, a trailing zero of the fraction goes too (250050 is "2500.5", as the money keyboard types it). `''` for
 * anything that is not a non-negative safe integer.
 */
export function majorFromMinor(minor: number, { shortest = false }: { shortest?: boolean } = {}): string {
  if (!Number.isSafeInteger(minor) || minor < 0) return '';
  const whole = BigInt(minor) / 100n;
  const cents = BigInt(minor) % 100n;
  if (cents === 0n) return whole.toString();
  const fraction = cents.toString().padStart(2, '0');
  return `${whole}.${shortest ? fraction.replace(/0$/, '') : fraction}`;
}
