// A saved ID or account number comes back from the server masked (`******234F`, `**** **** 4321`), and
// sending the masked value back keeps the stored number (docs/API-BORROWER.md). A field shows it as it
// came; the first edit starts a new number instead of editing stars.

/** True for a value with the server's mask characters in it. */
export function isMasked(value: string): boolean {
  return value.includes('*');
}

/**
 * The field's new raw value after an edit of `previous`: text typed after a masked value starts the new
 * number; deleting from it (or pasting over it) empties the field. An unmasked value changes as typed.
 */
export function editMasked(previous: string, next: string): string {
  if (!isMasked(previous)) return next;
  if (next.length > previous.length && next.startsWith(previous)) return next.slice(previous.length);
  return isMasked(next) ? '' : next;
}
