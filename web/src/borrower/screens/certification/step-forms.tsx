import { Button } from 'antd-mobile';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { formatPhoneInput } from '@/shared/phone/phone';
import type { CertStep, StepData } from '../../api/certification';
import type { Cities, Enums } from '../../api/reference-data';
import { useSendVerificationCode } from '../../api/verification-code';
import { AccountNumberInput } from '../../ui/account-number-input';
import { DateOfBirthField } from '../../ui/date-of-birth-field';
import { DigitsInput } from '../../ui/digits-input';
import { InputField } from '../../ui/input-field';
import { isMasked } from '../../ui/masked-value';
import { MoneyInput } from '../../ui/money-input';
import { SelectField } from '../../ui/select-field';
import { TextAreaField } from '../../ui/text-area-field';
import { birthDateRange, incomeForRule, minimumMonthlyIncome, upperAlphanumeric } from './form-model';
import { useStepForm, type StepForm } from './use-step-form';

interface Reference {
  enums: Enums;
  cities?: Cities;
}

/** The form of `step`, pre-filled with what was saved. */
export function CertificationForm<S extends CertStep>({ step, saved, enums, cities }: { step: S; saved: StepData[S] | null } & Reference) {
  switch (step) {
    case 'base':
      return <BaseForm saved={saved as StepData['base'] | null} enums={enums} />;
    case 'personal':
      return <PersonalForm saved={saved as StepData['personal'] | null} enums={enums} cities={cities} />;
    case 'job':
      return <JobForm saved={saved as StepData['job'] | null} enums={enums} />;
    case 'extended':
      return <ExtendedForm saved={saved as StepData['extended'] | null} enums={enums} />;
    default:
      return <BankForm saved={saved as StepData['bank'] | null} enums={enums} />;
  }
}

/** The form element, the server's errors for fields not on it, and the save button. */
function FormShell<S extends CertStep>({ form, children }: { form: StepForm<S>; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <form className="card cert-form" noValidate onSubmit={form.submit}>
      {children}
      {form.otherErrors.length > 0 && (
        <div className="cert-form__other" role="alert">
          <p>{t('cert.form.otherErrors')}</p>
          <ul>
            {form.otherErrors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      )}
      <Button block type="submit" color="primary" size="large" loading={form.saving} loadingText={t('cert.form.save')} disabled={form.saving}>
        {t('cert.form.save')}
      </Button>
    </form>
  );
}

function BaseForm({ saved, enums }: { saved: StepData['base'] | null; enums: Enums }) {
  const { t } = useTranslation();
  const market = useMarket();
  const form = useStepForm('base', saved, { enums });
  const { min, max } = birthDateRange(new Date());
  const id = form.bind('idNumber');
  const idHint = isMasked(id.value) ? t('cert.form.maskedHint') : enums.idNumber.kind === 'pan' ? t('cert.hints.idNumber_pan', { example: enums.idNumber.example }) : undefined;
  return (
    <FormShell form={form}>
      <InputField {...form.bind('fullName')} label={t('cert.fields.fullName')} autoComplete="name" maxLength={100} clearable />
      <DateOfBirthField
        {...form.bind('dateOfBirth')}
        label={t('cert.fields.dateOfBirth')}
        min={min}
        max={max}
        // The wheels open around an age most borrowers are, not at the youngest allowed.
        start={new Date(max.getFullYear() - 12, 0, 1)}
        locale={market.locale}
        placeholder={t('cert.date.placeholder')}
        confirmText={t('cert.date.confirm')}
        cancelText={t('cert.date.cancel')}
      />
      <SelectField {...form.bind('gender')} label={t('cert.fields.gender')} options={enums.gender} placeholder={t('cert.form.choose')} />
      {enums.idNumber.kind === 'pan' ? (
        <InputField
          {...id}
          label={t('cert.fields.idNumber_pan')}
          hint={idHint}
          sanitize={(raw) => upperAlphanumeric(raw, 10)}
          autoCapitalize="characters"
          autoComplete="off"
          placeholder={enums.idNumber.example}
        />
      ) : (
        <DigitsInput {...id} label={t('cert.fields.idNumber_nik')} hint={idHint} maxLength={16} />
      )}
    </FormShell>
  );
}

function PersonalForm({ saved, enums, cities }: { saved: StepData['personal'] | null; enums: Enums; cities?: Cities }) {
  const { t } = useTranslation();
  const form = useStepForm('personal', saved, { enums, cities });
  const regions = cities?.regions ?? [];
  const region = regions.find((candidate) => candidate.code === form.values.regionCode);
  const choose = t('cert.form.choose');
  const regionField = form.bind('regionCode');
  return (
    <FormShell form={form}>
      <SelectField {...form.bind('education')} label={t('cert.fields.education')} options={enums.education} placeholder={choose} />
      <SelectField {...form.bind('maritalStatus')} label={t('cert.fields.maritalStatus')} options={enums.maritalStatus} placeholder={choose} />
      <SelectField {...form.bind('residenceType')} label={t('cert.fields.residenceType')} options={enums.residenceType} placeholder={choose} />
      <SelectField
        {...regionField}
        label={t('cert.fields.regionCode')}
        options={regions.map((candidate) => ({ code: candidate.code, label: candidate.name }))}
        placeholder={choose}
        // The city list follows the region: a city of another region is no choice.
        onChange={(code) => {
          const next = regions.find((candidate) => candidate.code === code);
          const keepCity = next?.cities.some((city) => city.code === form.values.cityCode);
          form.set({ regionCode: code, ...(!keepCity && { cityCode: '' }) });
        }}
      />
      <SelectField
        {...form.bind('cityCode')}
        label={t('cert.fields.cityCode')}
        options={(region?.cities ?? []).map((city) => ({ code: city.code, label: city.name }))}
        placeholder={choose}
        disabled={!region}
      />
      <TextAreaField {...form.bind('address')} label={t('cert.fields.address')} hint={t('cert.hints.address')} autoComplete="street-address" maxLength={200} />
      <DigitsInput {...form.bind('postalCode')} label={t('cert.fields.postalCode')} maxLength={enums.postalCode.digits} autoComplete="postal-code" />
    </FormShell>
  );
}

function JobForm({ saved, enums }: { saved: StepData['job'] | null; enums: Enums }) {
  const { t } = useTranslation();
  const market = useMarket();
  const form = useStepForm('job', saved, { enums });
  // Below the minimum the step still saves (the income is true), but the borrower cannot apply: say so now.
  const minimumMonthly = minimumMonthlyIncome(enums);
  const typed = incomeForRule(form.values.income, enums);
  const belowMinimum = typed !== null && typed > 0 && typed < enums.minIncome;
  return (
    <FormShell form={form}>
      <SelectField {...form.bind('employmentType')} label={t('cert.fields.employmentType')} options={enums.employmentType} placeholder={t('cert.form.choose')} />
      <InputField {...form.bind('employerName')} label={t('cert.fields.employerName')} autoComplete="organization" maxLength={100} clearable />
      <MoneyInput
        {...form.bind('income')}
        market={market}
        label={t('cert.fields.income_month')}
        hint={
          enums.incomePeriod === 'year'
            ? t('cert.hints.income_year_monthly', { min: formatMoney(enums.minIncome, market), minMonth: formatMoney(minimumMonthly, market) })
            : t('cert.hints.income_month', { min: formatMoney(enums.minIncome, market) })
        }
      />
      {belowMinimum && (
        <p className="cert-form__warning" role="status">
          {t('cert.warnings.incomeBelowMinimum', { min: formatMoney(minimumMonthly, market) })}
        </p>
      )}
      <DigitsInput {...form.bind('payDay')} label={t('cert.fields.payDay')} maxLength={2} />
    </FormShell>
  );
}

const PHONE_FORMAT = {
  in: { countryCode: '+91', example: '98765 43210' },
  id: { countryCode: '+62', example: '0812-3456-7890' },
} as const;

function ExtendedForm({ saved, enums }: { saved: StepData['extended'] | null; enums: Enums }) {
  const { t } = useTranslation();
  const market = useMarket();
  const form = useStepForm('extended', saved, { enums });
  const phone = PHONE_FORMAT[market.id];
  const contact = (number: 1 | 2) => {
    const name = form.bind(`contact${number}Name`);
    const relation = form.bind(`contact${number}Relation`);
    const mobile = form.bind(`contact${number}Phone`);
    return (
      <fieldset className="cert-form__group">
        <legend className="cert-form__legend">{t('cert.fields.contact', { number })}</legend>
        <InputField {...name} label={t('cert.fields.contactName')} autoComplete="off" maxLength={100} clearable />
        <SelectField {...relation} label={t('cert.fields.contactRelation')} options={enums.relation} placeholder={t('cert.form.choose')} />
        <InputField
          {...mobile}
          label={t('cert.fields.contactPhone')}
          sanitize={(raw) => formatPhoneInput(raw, market.id)}
          prefix={<span className="field__prefix">{phone.countryCode}</span>}
          type="tel"
          inputMode="tel"
          autoComplete="off"
          placeholder={phone.example}
          clearable
        />
      </fieldset>
    );
  };
  const consent = form.bind('consent');
  return (
    <FormShell form={form}>
      <p className="cert-form__intro">{t('cert.hints.contacts')}</p>
      {contact(1)}
      {contact(2)}
      <div className={consent.error ? 'field field--error' : 'field'}>
        <label className="checkbox">
          <input
            id={consent.id}
            type="checkbox"
            checked={consent.value}
            onChange={(event) => consent.onChange(event.target.checked)}
            aria-invalid={consent.error ? true : undefined}
            aria-describedby={consent.error ? `${consent.id}-error` : undefined}
          />
          <span>{t('cert.fields.consent')}</span>
        </label>
        {consent.error && (
          <p className="field__error" id={`${consent.id}-error`}>
            {consent.error}
          </p>
        )}
      </div>
    </FormShell>
  );
}

function BankForm({ saved, enums }: { saved: StepData['bank'] | null; enums: Enums }) {
  const { t } = useTranslation();
  const form = useStepForm('bank', saved, { enums });
  // An account on file is changed only with the code sent to the borrower's phone (and never while a loan is open:
  // the server says so under the account number).
  const changing =
    saved !== null &&
    (form.values.bankCode !== saved.bankCode || !isMasked(form.values.accountNumber) || (enums.ifscRequired && form.values.ifsc !== (saved.ifsc ?? '')));
  const account = form.bind('accountNumber');
  const kept = isMasked(account.value);
  const bank = enums.banks.find((candidate) => candidate.code === form.values.bankCode);
  const { maxDigits } = enums.accountNumber;
  return (
    <FormShell form={form}>
      <SelectField {...form.bind('bankCode')} label={t('cert.fields.bankCode')} options={enums.banks} placeholder={t('cert.form.choose')} />
      <AccountNumberInput {...account} label={t('cert.fields.accountNumber')} hint={kept ? t('cert.form.maskedHint') : undefined} maxDigits={maxDigits} />
      {/* A kept (masked) number needs no confirmation: the server keeps the one it has. */}
      {!kept && (
        <AccountNumberInput
          {...form.bind('accountNumberConfirm')}
          label={t('cert.fields.accountNumberConfirm')}
          hint={t('cert.hints.accountNumberConfirm')}
          maxDigits={maxDigits}
        />
      )}
      {enums.ifscRequired && (
        <InputField
          {...form.bind('ifsc')}
          label={t('cert.fields.ifsc')}
          hint={t('cert.hints.ifsc', { example: `${bank?.ifscPrefix ?? 'HDFC'}0001234` })}
          sanitize={(raw) => upperAlphanumeric(raw, 11)}
          autoCapitalize="characters"
          autoComplete="off"
        />
      )}
      {changing && <VerificationCodeField field={form.bind('verificationCode')} />}
    </FormShell>
  );
}

/** The code that allows changing the bank account: sent on request to the borrower's own phone, typed here. */
function VerificationCodeField({ field }: { field: { id: string; value: string; onChange: (value: string) => void; error?: string } }) {
  const { t } = useTranslation();
  const send = useSendVerificationCode('bank_account');
  const problem = send.error && send.error.status !== 401 ? errorText(send.error, t) : null;
  return (
    <fieldset className="cert-form__group cert-form__verify">
      <legend className="cert-form__legend">{t('cert.verify.title')}</legend>
      <p className="cert-form__intro">{t('cert.verify.intro')}</p>
      <Button block fill="outline" color="primary" loading={send.isPending} onClick={() => send.mutate()}>
        {send.isSuccess ? t('cert.verify.resend') : t('cert.verify.send')}
      </Button>
      {send.isSuccess && (
        <p className="cert-form__sent" role="status">
          {t(send.data.deliveryConfirmed ? 'cert.verify.sent' : 'cert.verify.sentUnconfirmed', { phone: send.data.phoneMasked })}
        </p>
      )}
      {problem && (
        <p className="field__error" role="alert">
          {problem}
        </p>
      )}
      <DigitsInput {...field} label={t('cert.verify.label')} maxLength={6} autoComplete="one-time-code" />
    </fieldset>
  );
}

