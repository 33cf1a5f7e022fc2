import { useTranslation } from 'react-i18next';

const STEPS = [1, 2, 3] as const;

/** The three steps of SPEC.md §1. */
export function LoanSteps() {
  const { t } = useTranslation();
  return (
    <section className="section steps" aria-labelledby="steps-title">
      <h2 id="steps-title">{t('steps.title')}</h2>
      <ol className="steps__list">
        {STEPS.map((n) => (
          <li key={n} className="steps__item">
            <span className="steps__number" aria-hidden="true">
              {n}
            </span>
            <div>
              <h3>{t(`steps.s${n}Title`)}</h3>
              <p>{t(`steps.s${n}Text`)}</p>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
