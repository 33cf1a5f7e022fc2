import { Fragment, type ReactNode } from 'react';

/**
 * The class for an element that holds an e-mail address or a URL: it wraps inside its box (`overflow-wrap: anywhere`,
 * borrower.css) instead of running off a narrow card.
 */
export const LONG_VALUE = 'long-value';

/** A word that is an e-mail address or a URL. */
const ADDRESS = /^[^\s@]+@[^\s@]+$|:\/\/|^www\./i;

/**
 * An e-mail address or URL with places to wrap between its parts, after "@" and "/" (after "//" as one), before a "." inside
 * it ("pengaduan@" / "id.kilat.example"), so a line breaks there first and mid-word only when a part alone is wider
 * than the box. The text, read or copied, stays the same: a `<wbr>` adds no character.
 */
export function breakable(value: string): ReactNode[] {
  const out: ReactNode[] = [];
  let part = '';
  const cut = () => {
    if (part) out.push(part, <wbr key={out.length} />);
    part = '';
  };
  for (let i = 0; i < value.length; i += 1) {
    const char = value[i]!;
    const next = value[i + 1];
    // Before a dot that has a letter or digit after it (not a sentence's full stop).
    if (char === '.' && next !== undefined && /[\p{L}\p{N}]/u.test(next)) cut();
    part += char;
    if (char === '@' || (char === '/' && next !== '/')) cut();
  }
  if (part) out.push(part);
  else out.pop();
  return out;
}

/** Text in which any e-mail address or URL may wrap between its parts (`breakable`); the rest as it is. */
export function LongText({ text }: { text: string }) {
  const out: ReactNode[] = [];
  let plain = '';
  for (const word of text.split(/(\s+)/)) {
    if (ADDRESS.test(word.replace(/[,;.)]+$/, ''))) {
      if (plain) out.push(plain);
      out.push(<Fragment key={out.length}>{breakable(word)}</Fragment>);
      plain = '';
    } else plain += word;
  }
  if (plain) out.push(plain);
  return <>{out}</>;
}
