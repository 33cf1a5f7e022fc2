// The borrower's certification (docs/API-BORROWER.md, "Certification"): five steps saved in order.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { CertificationStepAnswer, CertificationStepSaved, Certification, CertificationLogEntry, CertStep, StepRequest } from './types';

export type {
  BankInfo,
  BaseInfo,
  CertificationStepAnswer,
  CertificationStepSaved,
  Certification,
  CertificationLogEntry,
  CertStatus,
  CertStep,
  ExtendedInfo,
  JobInfo,
  PersonalInfo,
  StepData,
  StepRequest,
} from './types';

export const CERTIFICATION_PATH = '/api/v1/borrower/certification';

/** The steps in the order they must be done. */
export const CERT_STEPS = ['base', 'personal', 'job', 'extended', 'bank'] as const satisfies readonly CertStep[];

export function isCertStep(value: string | undefined): value is CertStep {
  return (CERT_STEPS as readonly string[]).includes(value ?? '');
}

export function fetchCertification(api: HttpClient): Promise<Certification> {
  return api.get<Certification>(CERTIFICATION_PATH);
}

export function fetchCertificationLog(api: HttpClient): Promise<CertificationLogEntry[]> {
  return api.get<CertificationLogEntry[]>(`${CERTIFICATION_PATH}/log`);
}

export function fetchCertificationStep<S extends CertStep>(api: HttpClient, step: S): Promise<CertificationStepAnswer<S>> {
  return api.get<CertificationStepAnswer<S>>(`${CERTIFICATION_PATH}/${step}`);
}

export function saveCertificationStep<S extends CertStep>(api: HttpClient, step: S, body: StepRequest<S>): Promise<CertificationStepSaved<S>> {
  return api.postJson<CertificationStepSaved<S>>(`${CERTIFICATION_PATH}/${step}`, body);
}

/** Each step's status and the next one to do. */
export function useCertification() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.certification, queryFn: () => fetchCertification(api) });
}

/** When each step was completed or updated. */
export function useCertificationLog() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.certificationLog, queryFn: () => fetchCertificationLog(api) });
}

/** A step as saved (masked), to pre-fill its form; `data` is null before the first save. */
export function useCertificationStep<S extends CertStep>(step: S) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.certificationStep(step), queryFn: () => fetchCertificationStep(api, step) });
}

export function useSaveCertificationStep<S extends CertStep>(step: S) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<CertificationStepSaved<S>, ApiError, StepRequest<S>>({
    mutationFn: (body) => saveCertificationStep(api, step, body),
    // The answer (masked, as a read is) is not put in the cache: the statuses, the log and the saved steps are read
    // again, and the home screen's summary and eligibility (which count steps and read the income), without holding
    // up the move to the next step.
    onSuccess: () => {
      for (const queryKey of [queryKeys.certification, queryKeys.home, queryKeys.recommended]) void queryClient.invalidateQueries({ queryKey });
    },
  });
}
