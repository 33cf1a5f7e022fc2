// One confirmation of one Key Fact Statement is one order, however many times it is sent: a double tap,
// a retry after a lost answer, or a reload of the page that sent it. The key is made once per (product,
// amount, term, KFS hash) and kept in sessionStorage, so all of those send the same key and the server
// answers the same order (docs/API-BORROWER.md, `POST /orders`). A changed KFS is another key.

const PREFIX = 'kilat.confirm:';
const PAY_PREFIX = 'kilat.pay:';

export interface ConfirmationOf {
  productCode: string;
  amount: number;
  termCode: string;
  kfsHash: string;
}

/** Where sessionStorage is refused (some private modes), the key still holds for this page. */
const inMemory = new Map<string, string>();

function storageKey(of: ConfirmationOf): string {
  return `${PREFIX}${of.productCode}:${of.amount}:${of.termCode}:${of.kfsHash}`;
}

/** 32 hex digits of randomness: inside the server's `[A-Za-z0-9_-]{8,64}`. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The key of this confirmation: the one made before, or a new one, remembered. */
export function idempotencyKeyFor(of: ConfirmationOf, storage: Pick<Storage, 'getItem' | 'setItem'> | null): string {
  return keyNamed(storageKey(of), storage);
}

/** Forgets a confirmation's key once its order exists (or the server says the key is spent): applying again is new. */
export function forgetConfirmKey(of: ConfirmationOf, storage: Pick<Storage, 'removeItem'> | null): void {
  forgetKeyNamed(storageKey(of), storage);
}

/** A confirmation as it was sent (`POST /orders`'s body), kept until its answer is known (see `keepSentConfirmation`). */
export interface SentConfirmation extends ConfirmationOf {
  agreementHash: string;
  idempotencyKey: string;
}

/** The loan a confirmation is of, all that `POST /apply` knows before its statement is read. */
export type LoanOf = Pick<ConfirmationOf, 'productCode' | 'amount' | 'termCode'>;

const SENT_PREFIX = 'kilat.confirm-sent:';

/** A kept confirmation is the borrower's who sent it (their id from `GET /me`, no phone number): named by it and holding it. */
function sentStorageKey(of: LoanOf, borrower: string): string {
  return `${SENT_PREFIX}${encodeURIComponent(borrower)}:${of.productCode}:${of.amount}:${of.termCode}`;
}

/**
 * Keeps a confirmation as it is sent, as the signed-in borrower's. When its answer is lost the order may exist all the
 * same, and `POST /apply` then refuses this very loan with `open_order_exists`: sending the same request again is
 * answered with that order.
 */
export function keepSentConfirmation(sent: SentConfirmation, borrower: string, storage: Pick<Storage, 'setItem'> | null): void {
  const name = sentStorageKey(sent, borrower);
  const text = JSON.stringify({ ...sent, borrower });
  try {
    if (storage) {
      storage.setItem(name, text);
      return;
    }
  } catch {
    // Full or refused storage (private modes): the page's memory keeps it.
  }
  inMemory.set(name, text);
}

/**
 * The confirmation of this loan that `borrower` sent and is not yet answered, if one is kept: never another borrower's
 * (a shared phone), and nothing while the borrower is not known.
 */
export function sentConfirmationFor(of: LoanOf, borrower: string | null, storage: Pick<Storage, 'getItem'> | null): SentConfirmation | null {
  if (!borrower) return null;
  const name = sentStorageKey(of, borrower);
  let text: string | null | undefined = null;
  try {
    text = storage?.getItem(name);
  } catch {
    // Unreadable storage: the page's memory may have it.
  }
  text ||= inMemory.get(name);
  if (!text) return null;
  try {
    const kept = JSON.parse(text) as (Partial<SentConfirmation> & { borrower?: unknown }) | null;
    if (!kept || kept.borrower !== borrower) return null;
    const { productCode, amount, termCode, kfsHash, agreementHash, idempotencyKey } = kept;
    const strings = [kfsHash, agreementHash, idempotencyKey].every((value) => typeof value === 'string' && value !== '');
    const same = productCode === of.productCode && amount === of.amount && termCode === of.termCode;
    // The request as it was sent, and nothing else: the borrower's id is not part of it.
    return strings && same ? { productCode, amount, termCode, kfsHash: kfsHash!, agreementHash: agreementHash!, idempotencyKey: idempotencyKey! } : null;
  } catch {
    return null;
  }
}

/** Forgets a sent confirmation once it is answered: its order, or a refusal. */
export function forgetSentConfirmation(of: LoanOf, borrower: string | null, storage: Pick<Storage, 'removeItem'> | null): void {
  if (borrower) forgetKeyNamed(sentStorageKey(of, borrower), storage);
}

/** What this file keeps for a signed-in borrower: confirmation keys, sent confirmations and payment keys. */
const BORROWER_PREFIXES = [PREFIX, SENT_PREFIX, PAY_PREFIX];

/**
 * Forgets everything this file keeps, whoever it was kept for: at log-out and when the session ends (a 401), so
 * nothing of one borrower's applications or payments stays in the tab for whoever signs in next.
 */
export function forgetAllKept(storage: Pick<Storage, 'key' | 'length' | 'removeItem'> | null): void {
  inMemory.clear();
  try {
    if (!storage) return;
    const names: string[] = [];
    for (let index = 0; index < storage.length; index += 1) {
      const name = storage.key(index);
      if (name !== null && BORROWER_PREFIXES.some((prefix) => name.startsWith(prefix))) names.push(name);
    }
    for (const name of names) storage.removeItem(name);
  } catch {
    // Unreadable storage keeps nothing to forget.
  }
}

/**
 * One payment the borrower starts (docs/API-BORROWER.md, `POST /orders/{orderNo}/payments`): the same order, choice,
 * method and amount on the same business date is the same payment across double taps, retries and reloads; a new
 * amount or day (the next installment, a later payoff) is another key.
 */
export interface PaymentOf {
  orderNo: string;
  choice: string;
  method: string;
  amount: number;
  today: string;
}

function paymentStorageKey(of: PaymentOf): string {
  return `${PAY_PREFIX}${of.orderNo}:${of.choice}:${of.method}:${of.amount}:${of.today}`;
}

export function paymentKeyFor(of: PaymentOf, storage: Pick<Storage, 'getItem' | 'setItem'> | null): string {
  return keyNamed(paymentStorageKey(of), storage);
}

/** Forgets a payment's key once that payment was refused, so paying again starts a new one. */
export function forgetPaymentKey(of: PaymentOf, storage: Pick<Storage, 'removeItem'> | null): void {
  forgetKeyNamed(paymentStorageKey(of), storage);
}

function forgetKeyNamed(name: string, storage: Pick<Storage, 'removeItem'> | null): void {
  inMemory.delete(name);
  try {
    storage?.removeItem(name);
  } catch {
    // Nothing kept there to forget.
  }
}

function keyNamed(name: string, storage: Pick<Storage, 'getItem' | 'setItem'> | null): string {
  const valid = (key: string | null | undefined): key is string => !!key && /^[A-Za-z0-9_-]{8,64}$/.test(key);
  try {
    if (storage) {
      const kept = storage.getItem(name);
      if (valid(kept)) return kept;
      const key = newIdempotencyKey();
      storage.setItem(name, key);
      return key;
    }
  } catch {
    // Unreadable or full storage (private modes): the page's memory still covers a retry or a double tap.
  }
  const kept = inMemory.get(name);
  if (valid(kept)) return kept;
  const key = newIdempotencyKey();
  inMemory.set(name, key);
  return key;
}
