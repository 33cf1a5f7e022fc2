import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { CERT_STEPS, isCertStep, useCertificationStep, type CertStep } from '../../api/certification';
import { useMe } from '../../api/me';
import { useCities, useEnums } from '../../api/reference-data';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { CertificationForm } from './step-forms';
import './certification.css';

/** `/certification/:step`: one step's form, pre-filled with what was saved. */
export function CertificationStepPage() {
  const { t } = useTranslation();
  const { step } = useParams();
  if (!isCertStep(step)) {
    return (
      <Screen title={t('cert.progress.title')} backTo="/certification">
        <StateNotice
          kind="empty"
          title={t('cert.form.notFound')}
          actions={
            <Link className="state__link" to="/certification">
              {t('cert.form.toProgress')}
            </Link>
          }
        />
      </Screen>
    );
  }
  // A new step is a new form: nothing typed on one step carries over to the next.
  return <StepScreen key={step} step={step} />;
}

function StepScreen({ step }: { step: CertStep }) {
  const { t } = useTranslation();
  const saved = useCertificationStep(step);
  const enums = useEnums();
  // The borrower, whose draft of this step (if any) the form opens with.
  const me = useMe();
  const needsCities = step === 'personal';
  const cities = useCities({ enabled: needsCities });
  const reads = needsCities ? [saved, enums, me, cities] : [saved, enums, me];
  const failed = reads.find((read) => read.isError);
  return (
    <Screen title={t(`cert.steps.${step}`)} backTo="/certification">
      <p className="cert-step__count">{t('cert.form.stepOf', { number: CERT_STEPS.indexOf(step) + 1, total: CERT_STEPS.length })}</p>
      {failed ? (
        <StateNotice
          kind="error"
          title={t('cert.form.loadFailed')}
          text={errorText(failed.error, t)}
          onRetry={() => reads.filter((read) => read.isError).forEach((read) => void read.refetch())}
        />
      ) : saved.isPending || (saved.isFetching && saved.isStale) || enums.isPending || me.isPending || (needsCities && cities.isPending) ? (
        // A step saved a moment ago is read again before its form opens: a form filled from the copy before the save
        // would send the old values back over it.
        <LoadingState />
      ) : (
        <CertificationForm step={step} saved={saved.data?.data ?? null} enums={enums.data!} cities={cities.data} />
      )}
    </Screen>
  );
}
