import { useEffect, useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import type { Json } from '@/shared/api/http';
import { useProductPreview, useSaveProduct } from '../api/admin';
import type { ApiMarket, ConsoleProduct, ProductPreview } from '../api/types';
import { day, money, term as termWords } from '../format';
import {
  blankFields,
  fieldOfServerError,
  textToMinor,
  toDefinition,
  toFields,
  type FeeFields,
  type FieldProblems,
  type ProductFields,
  type TermFields,
} from '../product-definition';

/** How long the form waits after the last keystroke before it asks for a new preview. */
const PREVIEW_DELAY_MS = 400;

function useDebounced<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}

/**
 * A product in a form (issue 18 item 8): money in rupees or rupiah, rates in percent, terms, fees, the late charge,
 * the extension and cooling-off, with a live Key Fact Statement of a sample loan beside it (the APR and, in
 * Indonesia, the daily cost against the OJK cap). Saving a live product at another price asks first, with the APR
 * before and after.
 */
export function ProductForm({
  product,
  market,
  onCancel,
  onSaved,
}: {
  /** Null for a new product. */
  product: ConsoleProduct | null;
  market: ApiMarket;
  onCancel: () => void;
  onSaved: (p: ConsoleProduct) => void;
}) {
  const { t } = useTranslation();
  const save = useSaveProduct();
  const [fields, setFields] = useState<ProductFields>(() =>
    product ? toFields(product.definition, product.market) : blankFields(market),
  );
  const [submitted, setSubmitted] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [sampleAmount, setSampleAmount] = useState('');
  const [sampleTerm, setSampleTerm] = useState('');

  const parsed = useMemo(() => toDefinition(fields), [fields]);
  const problems: FieldProblems = 'problems' in parsed ? parsed.problems : {};
  const definition = 'definition' in parsed ? parsed.definition : null;
  const termCodes = fields.terms.map((x) => x.code.trim()).filter(Boolean);
  const chosenTerm = termCodes.includes(sampleTerm) ? sampleTerm : '';
  const chosenAmount = sampleAmount.trim() === '' ? null : textToMinor(sampleAmount, fields.market);
  const sampleReads = sampleAmount.trim() === '' || chosenAmount !== null;
  const request = definition && sampleReads
    ? {
        definition: definition as Json,
        ...(chosenAmount !== null ? { amount: chosenAmount } : {}),
        ...(chosenTerm ? { termCode: chosenTerm } : {}),
      }
    : null;
  // Debounced as text: the same request typed again is the same value, so nothing renders or asks twice.
  const requestText = useDebounced(request && JSON.stringify(request), PREVIEW_DELAY_MS);
  const previewRequest = useMemo(
    () => (requestText ? (JSON.parse(requestText) as { definition: Json; amount?: number; termCode?: string }) : null),
    [requestText],
  );
  const preview = useProductPreview(previewRequest);

  const set = <K extends keyof ProductFields>(key: K, value: ProductFields[K]) => {
    setConfirming(false);
    setFields((f) => ({ ...f, [key]: value }));
  };
  const setTerm = (i: number, patch: Partial<TermFields>) =>
    set('terms', fields.terms.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const setFee = (i: number, patch: Partial<FeeFields>) =>
    set('fees', fields.fees.map((x, j) => (j === i ? { ...x, ...patch } : x)));

  // A field's problem: the form's own once a save was tried, else the server's (from the preview or the save).
  const serverFields: Record<string, string> = {};
  for (const error of [preview.error, save.error]) {
    for (const [field, message] of Object.entries(error?.fields ?? {})) {
      if (error === preview.error && (field === 'amount' || field === 'termCode')) continue;
      serverFields[fieldOfServerError(field)] = message;
    }
  }
  const problemOf = (key: string): string | undefined =>
    (submitted && problems[key] ? t(`productForm.problem.${problems[key]}`) : undefined) ?? serverFields[key];

  const before = product?.sample ?? null;
  const after = preview.data?.sample ?? null;
  const priceChanges =
    product !== null && product.enabled && before !== null && after !== null && before.apr !== after.apr;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (!definition) return;
    if (priceChanges && !confirming) {
      setConfirming(true);
      return;
    }
    save.mutate(
      { edit: product ? { code: product.code, version: product.version } : null, definition: definition as Json },
      { onSuccess: onSaved },
    );
  }

  const title = product ? t('products.editing', { code: product.code }) : t('products.creating');
  const otherErrors = Object.entries(save.error?.fields ?? {}).filter(([field]) => field === 'product');
  return (
    <form className="panel product-form" onSubmit={submit} aria-label={title} noValidate>
      <h2>{title}</h2>
      <p className="muted">{product ? t('products.versionNote') : t('productForm.newNote')}</p>
      <div className="product-form__grid">
        <div>
          <fieldset className="form-section">
            <legend>{t('productForm.about')}</legend>
            <div className="form-row">
              <TextField label={t('productForm.name')} value={fields.name} problem={problemOf('name')} onChange={(v) => set('name', v)} />
              <TextField
                label={t('productForm.code')}
                hint={product ? t('productForm.codeFixed') : t('productForm.codeHint')}
                value={fields.code}
                disabled={product !== null}
                problem={problemOf('code')}
                onChange={(v) => set('code', v)}
              />
            </div>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.amounts', { currency: fields.market === 'IN' ? '₹' : 'Rp' })}</legend>
            <div className="form-row">
              <TextField label={t('productForm.min')} inputMode="decimal" value={fields.amountMin} problem={problemOf('amountMin')} onChange={(v) => set('amountMin', v)} />
              <TextField label={t('productForm.max')} inputMode="decimal" value={fields.amountMax} problem={problemOf('amountMax')} onChange={(v) => set('amountMax', v)} />
              <TextField label={t('productForm.step')} inputMode="decimal" value={fields.amountStep} problem={problemOf('amountStep')} onChange={(v) => set('amountStep', v)} />
            </div>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.interest')}</legend>
            <div className="form-row">
              <TextField label={t('productForm.rate')} suffix="%" inputMode="decimal" value={fields.rate} problem={problemOf('rate')} onChange={(v) => set('rate', v)} />
              <SelectField
                label={t('productForm.per')}
                value={fields.per}
                options={[['day', t('productForm.perDay')], ['year', t('productForm.perYear')]]}
                onChange={(v) => set('per', v as ProductFields['per'])}
              />
              <SelectField
                label={t('productForm.method')}
                value={fields.method}
                options={[['flat', t('productForm.flat')], ['reducing', t('productForm.reducing')]]}
                onChange={(v) => set('method', v as ProductFields['method'])}
              />
              <SelectField
                label={t('productForm.rounding')}
                value={fields.rounding}
                options={[['minor', t('productForm.roundingMinor')], ['whole', t('productForm.roundingWhole')]]}
                onChange={(v) => set('rounding', v as ProductFields['rounding'])}
              />
            </div>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.terms')}</legend>
            {problemOf('terms') && <p className="field-error">{problemOf('terms')}</p>}
            {fields.terms.map((x, i) => (
              <div className="form-row" key={i} role="group" aria-label={t('productForm.termN', { n: i + 1 })}>
                <TextField label={t('productForm.termCode')} value={x.code} problem={problemOf(`terms.${i}.code`)} onChange={(v) => setTerm(i, { code: v })} />
                <SelectField
                  label={t('productForm.repaid')}
                  value={x.kind}
                  options={[['days', t('productForm.everyDays')], ['monthly', t('productForm.monthly')]]}
                  onChange={(v) => setTerm(i, { kind: v as TermFields['kind'] })}
                />
                {x.kind === 'days' && (
                  <TextField label={t('productForm.days')} inputMode="numeric" value={x.days} problem={problemOf(`terms.${i}.days`)} onChange={(v) => setTerm(i, { days: v })} />
                )}
                <TextField
                  label={t('productForm.installments')}
                  inputMode="numeric"
                  value={x.installments}
                  problem={problemOf(`terms.${i}.installments`)}
                  onChange={(v) => setTerm(i, { installments: v })}
                />
                <button
                  type="button"
                  className="button button--quiet"
                  disabled={fields.terms.length === 1}
                  onClick={() => set('terms', fields.terms.filter((_, j) => j !== i))}
                  aria-label={t('productForm.removeTerm', { n: i + 1 })}
                >
                  {t('productForm.remove')}
                </button>
              </div>
            ))}
            <button
              type="button"
              className="button button--quiet"
              onClick={() => set('terms', [...fields.terms, { code: '', kind: 'days', days: '30', installments: '1' }])}
            >
              {t('productForm.addTerm')}
            </button>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.fees')}</legend>
            {fields.fees.length === 0 && <p className="muted">{t('productForm.noFees')}</p>}
            {fields.fees.map((fee, i) => (
              <div className="form-row" key={i} role="group" aria-label={t('productForm.feeN', { n: i + 1 })}>
                <TextField label={t('productForm.feeName')} value={fee.name} problem={problemOf(`fees.${i}.name`)} onChange={(v) => setFee(i, { name: v })} />
                <TextField label={t('productForm.feePercent')} suffix="%" inputMode="decimal" value={fee.percent} problem={problemOf(`fees.${i}.percent`)} onChange={(v) => setFee(i, { percent: v })} />
                <TextField label={t('productForm.feeFixed')} inputMode="decimal" value={fee.fixed} problem={problemOf(`fees.${i}.fixed`)} onChange={(v) => setFee(i, { fixed: v })} />
                <button
                  type="button"
                  className="button button--quiet"
                  onClick={() => set('fees', fields.fees.filter((_, j) => j !== i))}
                  aria-label={t('productForm.removeFee', { n: i + 1 })}
                >
                  {t('productForm.remove')}
                </button>
              </div>
            ))}
            <div className="form-row">
              <button type="button" className="button button--quiet" onClick={() => set('fees', [...fields.fees, { name: '', percent: '0', fixed: '0' }])}>
                {t('productForm.addFee')}
              </button>
              <label className="check">
                <input type="checkbox" checked={fields.feesDeductedAtDisbursal} onChange={(e) => set('feesDeductedAtDisbursal', e.target.checked)} />{' '}
                {t('productForm.deducted')}
              </label>
            </div>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.late')}</legend>
            <div className="form-row">
              <TextField label={t('productForm.lateFlat')} inputMode="decimal" value={fields.lateFlat} problem={problemOf('lateFlat')} onChange={(v) => set('lateFlat', v)} />
              <TextField label={t('productForm.latePerDay')} inputMode="decimal" value={fields.latePerDay} problem={problemOf('latePerDay')} onChange={(v) => set('latePerDay', v)} />
              <TextField label={t('productForm.lateMaxDays')} inputMode="numeric" value={fields.lateMaxDays} problem={problemOf('lateMaxDays')} onChange={(v) => set('lateMaxDays', v)} />
            </div>
          </fieldset>

          <fieldset className="form-section">
            <legend>{t('productForm.extensionAndCooling')}</legend>
            <label className="check">
              <input type="checkbox" checked={fields.extension} onChange={(e) => set('extension', e.target.checked)} /> {t('productForm.offersExtension')}
            </label>
            {fields.extension && (
              <div className="form-row">
                <TextField label={t('productForm.extensionDays')} inputMode="numeric" value={fields.extensionDays} problem={problemOf('extensionDays')} onChange={(v) => set('extensionDays', v)} />
                <TextField label={t('productForm.extensionFeePercent')} suffix="%" inputMode="decimal" value={fields.extensionFeePercent} problem={problemOf('extensionFeePercent')} onChange={(v) => set('extensionFeePercent', v)} />
                <TextField label={t('productForm.extensionFeeFixed')} inputMode="decimal" value={fields.extensionFeeFixed} problem={problemOf('extensionFeeFixed')} onChange={(v) => set('extensionFeeFixed', v)} />
                <TextField label={t('productForm.extensionMax')} inputMode="numeric" value={fields.extensionMax} problem={problemOf('extensionMax')} onChange={(v) => set('extensionMax', v)} />
              </div>
            )}
            <div className="form-row">
              <TextField
                label={t('productForm.coolingOff')}
                hint={t('productForm.coolingOffHint')}
                inputMode="numeric"
                value={fields.coolingOffDays}
                problem={problemOf('coolingOffDays')}
                onChange={(v) => set('coolingOffDays', v)}
              />
            </div>
          </fieldset>
        </div>

        <aside className="product-preview" aria-labelledby="product-preview-title" aria-live="polite">
          <h3 id="product-preview-title">{t('productForm.preview')}</h3>
          <div className="form-row">
            <TextField
              label={t('productForm.sampleAmount')}
              hint={t('productForm.sampleAmountHint')}
              inputMode="decimal"
              value={sampleAmount}
              problem={
                (sampleAmount.trim() !== '' && chosenAmount === null ? t(`productForm.problem.${fields.market === 'ID' ? 'rupiah' : 'rupees'}`) : undefined) ??
                preview.error?.fields.amount
              }
              onChange={setSampleAmount}
            />
            <SelectField
              label={t('productForm.sampleTerm')}
              value={chosenTerm}
              options={[['', t('productForm.firstTerm')], ...termCodes.map((c): [string, string] => [c, termWords(c, t)])]}
              onChange={setSampleTerm}
            />
          </div>
          <PreviewBody preview={preview.data} stale={preview.isFetching || previewRequest === null} error={preview.error && Object.keys(preview.error.fields).length === 0 ? errorText(preview.error, t) : null} invalid={!definition || preview.isError} />
        </aside>
      </div>

      {otherErrors.map(([field, message]) => (
        <p key={field} className="field-error" role="alert">
          {message}
        </p>
      ))}
      {save.isError && Object.keys(save.error.fields).length === 0 && (
        <p className="notice notice--error" role="alert">
          {save.error.code === 'product_changed' ? t('productForm.changedMeanwhile') : errorText(save.error, t)}
        </p>
      )}
      {submitted && !definition && (
        <p className="notice notice--error" role="alert">
          {t('productForm.fixFields')}
        </p>
      )}
      {confirming && before && after ? (
        <div className="notice confirm" role="group" aria-labelledby="price-change">
          <p id="price-change">
            <strong>
              {t('productForm.priceChange', {
                amount: money(before.amount, product?.currency ?? 'INR'),
                term: termWords(before.termCode, t),
                before: before.aprDisplay,
                after: after.aprDisplay,
              })}
            </strong>{' '}
            {t('productForm.priceChangeNote')}
          </p>
          <div className="actions">
            <button type="submit" className="button button--primary" disabled={save.isPending}>
              {t('productForm.saveNewPrice')}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setConfirming(false)}>
              {t('productForm.back')}
            </button>
          </div>
        </div>
      ) : (
        <div className="actions">
          <button type="submit" className="button button--primary" disabled={save.isPending || (product !== null && priceChanges && preview.isFetching)}>
            {t('products.save')}
          </button>
          <button type="button" className="button button--quiet" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        </div>
      )}
    </form>
  );
}

function PreviewBody({ preview, stale, error, invalid }: { preview: ProductPreview | undefined; stale: boolean; error: string | null; invalid: boolean }) {
  const { t } = useTranslation();
  if (error) return <p className="notice notice--error">{error}</p>;
  // A definition the server refuses (a cap, named beside its field) has no statement to show.
  if (!preview || invalid) return <p className="muted">{invalid ? t('productForm.previewNeedsFields') : t('productForm.previewLoading')}</p>;
  const k = preview.kfs;
  const m = (minor: number) => money(minor, k.currency);
  return (
    <div className={stale ? 'preview-body preview-body--stale' : 'preview-body'}>
      <dl className="facts facts--compact">
        <dt>{t('productForm.kfs.loan')}</dt>
        <dd>
          {m(k.sanctionedAmount)} · {termWords(k.termCode, t)}
        </dd>
        <dt>{t('productForm.kfs.fees')}</dt>
        <dd>{m(k.totalFees)}</dd>
        <dt>{t('productForm.kfs.paidOut')}</dt>
        <dd>{m(k.netDisbursed)}</dd>
        <dt>{t('productForm.kfs.interest')}</dt>
        <dd>{m(k.totalInterest)}</dd>
        <dt>{t('productForm.kfs.total')}</dt>
        <dd>{m(k.totalRepayable)}</dd>
        <dt>{t('productForm.kfs.apr')}</dt>
        <dd>
          <strong>{k.aprDisplay}</strong>
        </dd>
        {k.dailyCost && (
          <>
            <dt>{t('productForm.kfs.dailyCost')}</dt>
            <dd>
              {t('productForm.kfs.dailyAgainstCap', {
                rate: preview.sample?.dailyCost ?? '',
                cap: preview.sample?.dailyCap ?? '',
              })}
            </dd>
          </>
        )}
        <dt>{t('productForm.kfs.maxLate')}</dt>
        <dd>{m(k.maxLateCharges)}</dd>
      </dl>
      <table className="table table--compact">
        <caption>{t('productForm.kfs.schedule', { date: day(k.disbursalDate) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('productForm.kfs.no')}</th>
            <th scope="col">{t('productForm.kfs.due')}</th>
            <th scope="col" className="num">
              {t('productForm.kfs.amount')}
            </th>
          </tr>
        </thead>
        <tbody>
          {k.installments.map((x) => (
            <tr key={x.number}>
              <td>{x.number}</td>
              <td>{day(x.dueDate)}</td>
              <td className="num">{m(x.amount)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function TextField({
  label,
  value,
  onChange,
  problem,
  hint,
  suffix,
  inputMode,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem?: string;
  hint?: string;
  suffix?: string;
  inputMode?: 'decimal' | 'numeric';
  disabled?: boolean;
}) {
  const id = useId();
  const note: ReactNode = problem ?? hint;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <span className="input-with-suffix">
        <input
          id={id}
          value={value}
          inputMode={inputMode}
          disabled={disabled}
          aria-invalid={problem ? true : undefined}
          aria-describedby={note ? `${id}-note` : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
        {suffix && <span aria-hidden="true">{suffix}</span>}
      </span>
      {note && (
        <p id={`${id}-note`} className={problem ? 'field-error' : 'muted'}>
          {note}
        </p>
      )}
    </div>
  );
}

function SelectField({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
