import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { sessionStorageOrNull } from '../../boot';
import { useSaveCertificationStep, type CertStep, type StepData } from '../../api/certification';
import { useMe } from '../../api/me';
import type { Cities, Enums } from '../../api/reference-data';
import { useErrorToast } from '../../ui/use-error-toast';
import { CHECKS, FIELD_ORDER, initialValues, requestBody, type FieldErrors, type FieldName, type FormValues, type Rules } from './form-model';
import { forgetDraft, keepDraft, openingValues } from './step-draft';

/** The id of a field's control: its label, error and the focus after a failed save point at it. */
export function fieldId(name: string): string {
  return `cert-${name}`;
}

/** Where the progress screen finds a message to show as it opens (a refusal that sent the borrower there). */
export interface ProgressNotice {
  notice: string;
}

/**
 * One step's form: its values, the errors under its fields (from the client's checks, then the server's),
 * and saving. A saved step goes on to the step the server names next, or back to the progress screen.
 * What the borrower types is kept as the step's draft (step-draft.ts) until it is saved, so a session that ends
 * before Save does not cost the borrower their typing: the step opens with it again after signing in.
 */
export function useStepForm<S extends CertStep>(step: S, saved: StepData[S] | null, reference: { enums: Enums; cities?: Cities }) {
  const { t } = useTranslation();
  const market = useMarket();
  const navigate = useNavigate();
  const showError = useErrorToast();
  const save = useSaveCertificationStep(step);
  // The step page waits for the borrower (`GET /me`): a draft is only ever theirs.
  const borrower = useMe().data?.id ?? null;
  const [base] = useState<FormValues[S]>(() => initialValues(step, saved, market, reference.enums));
  const [values, setValues] = useState<FormValues[S]>(() => (borrower ? openingValues(step, base, borrower, sessionStorageOrNull()) : base));
  /** Whether the borrower has typed since the form opened: a form only looked at keeps no draft. */
  const edited = useRef(false);
  useEffect(() => {
    if (edited.current && borrower) keepDraft(step, { borrower, base, values }, sessionStorageOrNull());
  }, [step, borrower, base, values]);
  const [errors, setErrors] = useState<FieldErrors<S>>({});
  /** Server field errors for fields this form does not show. */
  const [otherErrors, setOtherErrors] = useState<string[]>([]);
  const fields = FIELD_ORDER[step] as FieldName<S>[];

  const focusFirst = (found: FieldErrors<S>) => {
    const first = fields.find((name) => found[name]);
    if (first) document.getElementById(fieldId(first))?.focus();
  };

  /** Sets fields; an edited field's error goes, as it may no longer hold. */
  const set = (changes: Partial<FormValues[S]>) => {
    edited.current = true;
    setValues((before) => ({ ...before, ...changes }));
    setErrors((before) => {
      const after = { ...before };
      for (const name of Object.keys(changes)) delete after[name as FieldName<S>];
      return after;
    });
  };

  /** The props every field takes: its id, value, change handler and error. */
  const bind = <F extends FieldName<S>>(name: F) => ({
    id: fieldId(name),
    value: values[name],
    onChange: (value: FormValues[S][F]) => set({ [name]: value } as unknown as Partial<FormValues[S]>),
    error: errors[name],
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    const rules: Rules = { t, market, today: new Date(), ...reference };
    const found = CHECKS[step](values, rules);
    setErrors(found);
    setOtherErrors([]);
    if (Object.keys(found).length > 0) {
      focusFirst(found);
      return;
    }
    save.mutate(requestBody(step, values, rules, saved), {
      onSuccess: (answer) => {
        // Saved: the draft has done its work; what opens next time is the saved step.
        edited.current = false;
        forgetDraft(step, sessionStorageOrNull());
        void navigate(answer.next ? `/certification/${answer.next}` : '/certification');
      },
      onError: (error) => {
        if (error instanceof ApiError && error.code === 'certification_out_of_order') {
          const state: ProgressNotice = { notice: error.msg || t('cert.progress.outOfOrder') };
          void navigate('/certification', { replace: true, state });
          return;
        }
        // A session that ended sends the borrower to the login screen (app.tsx), and the step keeps their draft for
        // when they come back: nothing to say here.
        if (error instanceof ApiError && error.status === 401) return;
        showError(error);
        if (!(error instanceof ApiError)) return;
        const atFields: FieldErrors<S> = {};
        const elsewhere: string[] = [];
        for (const [name, message] of Object.entries(error.fields)) {
          if ((fields as string[]).includes(name)) atFields[name as FieldName<S>] = message;
          else elsewhere.push(message);
        }
        setErrors(atFields);
        setOtherErrors(elsewhere);
        focusFirst(atFields);
      },
    });
  };

  return { values, errors, otherErrors, set, bind, submit, saving: save.isPending };
}

export type StepForm<S extends CertStep> = ReturnType<typeof useStepForm<S>>;
