// What the borrower typed into a certification step and has not saved yet, kept in sessionStorage (this tab only, gone
// when it closes) under the step's name: a session that ends before Save (expired, revoked elsewhere) sends the
// borrower to the login screen, and after signing in the step opens again with what they typed, not empty.
//
// Full ID and bank-account numbers are never kept in clear: those fields are kept only while they still hold the
// saved, masked number; a number typed in clear is left out, and the field comes back empty to type again (never
// the masked one, which would silently keep the old number on save). The phone's verification code is never kept.
//
// A draft belongs to the borrower who typed it, and to the saved copy it was typed over: it is restored only for that
// borrower and only while the saved step is still what the form opened with (a save since, from this tab or another
// device, is newer and wins), and only when it differs from it. It goes after a successful save and at log-out.
import type { CertStep } from '../../api/certification';
import { isMasked } from '../../ui/masked-value';
import type { FormValues } from './form-model';

const PREFIX = 'kilat.cert-draft:';

/** The fields kept only while they hold a masked number; any other value is kept as empty. */
const NUMBERS: { [S in CertStep]?: readonly (keyof FormValues[S])[] } = {
  base: ['idNumber'],
  bank: ['accountNumber', 'accountNumberConfirm', 'verificationCode'],
};

export interface StepDraft<S extends CertStep> {
  /** The borrower's id (`GET /me`). */
  borrower: string;
  /** The form's values as it opened from the saved step, as kept: what the draft was typed over. */
  base: FormValues[S];
  values: FormValues[S];
}

type DraftStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Where sessionStorage is refused (some private modes), the draft still holds for this page. */
const inMemory = new Map<string, string>();

function storageKey(step: CertStep): string {
  return `${PREFIX}${step}`;
}

/** The values as a draft keeps them: a number typed in clear becomes empty. */
export function keptValues<S extends CertStep>(step: S, values: FormValues[S]): FormValues[S] {
  const kept = { ...values };
  for (const name of (NUMBERS[step] ?? []) as (keyof FormValues[S])[]) {
    const value = kept[name];
    if (typeof value === 'string' && !isMasked(value)) kept[name] = '' as FormValues[S][keyof FormValues[S]];
  }
  return kept;
}

function same(a: object, b: object): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key]);
}

export function keepDraft<S extends CertStep>(step: S, draft: StepDraft<S>, storage: DraftStorage | null): void {
  const name = storageKey(step);
  const text = JSON.stringify({ borrower: draft.borrower, base: keptValues(step, draft.base), values: keptValues(step, draft.values) });
  try {
    if (storage) {
      storage.setItem(name, text);
      return;
    }
  } catch {
    // Full or refused storage (private modes): the page's memory still covers a sign-in without a reload.
  }
  inMemory.set(name, text);
}

function readDraft<S extends CertStep>(step: S, storage: DraftStorage | null): StepDraft<S> | null {
  const name = storageKey(step);
  let text: string | null | undefined;
  try {
    text = storage ? (storage.getItem(name) ?? inMemory.get(name)) : inMemory.get(name);
  } catch {
    text = inMemory.get(name);
  }
  if (!text) return null;
  try {
    const draft = JSON.parse(text) as Partial<StepDraft<S>> | null;
    if (typeof draft?.borrower !== 'string' || !isRecord(draft.base) || !isRecord(draft.values)) return null;
    return draft as StepDraft<S>;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function forgetDraft(step: CertStep, storage: Pick<Storage, 'removeItem'> | null): void {
  const name = storageKey(step);
  inMemory.delete(name);
  try {
    storage?.removeItem(name);
  } catch {
    // Nothing kept there to forget.
  }
}

/** Forgets every step's draft (log-out, account deleted). */
export function forgetAllDrafts(storage: Pick<Storage, 'removeItem'> | null): void {
  for (const step of ['base', 'personal', 'job', 'extended', 'bank'] as const satisfies readonly CertStep[]) forgetDraft(step, storage);
}

/**
 * The values a step's form opens with: the draft's over the saved ones when the draft is this borrower's, was typed over
 * the saved step as it still is, and differs from it; otherwise the saved ones, and a draft that lost is forgotten.
 */
export function openingValues<S extends CertStep>(step: S, saved: FormValues[S], borrower: string, storage: DraftStorage | null): FormValues[S] {
  const draft = readDraft(step, storage);
  if (!draft) return saved;
  const base = keptValues(step, saved);
  if (draft.borrower !== borrower || !same(draft.base, base) || same(draft.values, base)) {
    forgetDraft(step, storage);
    return saved;
  }
  // Only the step's own fields, of the type they have in the form.
  const restored = { ...saved };
  for (const key of Object.keys(saved) as (keyof FormValues[S])[]) {
    const value = (draft.values as Record<keyof FormValues[S], unknown>)[key];
    if (typeof value === typeof saved[key]) restored[key] = value as FormValues[S][keyof FormValues[S]];
  }
  return restored;
}
