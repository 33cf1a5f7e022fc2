import { useTranslation } from 'react-i18next';
import type { PaymentInstructions, PaymentMethod } from '../../api/payment-types';

/** The market's payment types as a choice of one. */
export function MethodPicker({
  types,
  value,
  onChange,
}: {
  types: PaymentInstructions[];
  value: PaymentMethod | null;
  onChange: (method: PaymentMethod) => void;
}) {
  const { t } = useTranslation();
  return (
    <fieldset className="card methods">
      <legend className="kfs__heading">{t('servicing.pay.method')}</legend>
      {types.map((type) => (
        <label key={type.method} className={value === type.method ? 'method method--on' : 'method'}>
          <input type="radio" name="method" value={type.method} checked={value === type.method} onChange={() => onChange(type.method)} />
          <span className="method__text">
            <span className="method__name">{t(`servicing.method.${type.method}`)}</span>
            <span className="method__hint">{t(`servicing.methodHint.${type.method}`, { bank: type.bankName ?? type.bankCode ?? '' })}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
