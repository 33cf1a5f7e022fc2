// The borrower's certification (docs/API-BORROWER.md, "Certification"): five steps saved in order. The
// shapes are written out by hand from the contract until the OpenAPI document describes them.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';

export const CERTIFICATION_PATH = '/api/v1/borrower/certification';

/** The steps in the order they must be done. */
export const CERT_STEPS = ['base', 'personal', 'job', 'extended', 'bank'] as const;
export type CertStep = (typeof CERT_STEPS)[number];

export function isCertStep(value: string | undefined): value is CertStep {
  return (CERT_STEPS as readonly string[]).includes(value ?? '');
}

export type CertStatus = 'done' | 'todo';

/** `GET /certification`. */
export interface Certification {
  steps: { step: CertStep; certStatus: CertStatus; completedAt: number | null }[];
  complete: boolean;
  /** The first step not done yet, or null when all are. */
  next: CertStep | null;
}

/** One line of `GET /certification/log`, oldest first: `completed` the first time, `updated` after. */
export interface CertificationLogEntry {
  step: CertStep;
  event: 'completed' | 'updated';
  /** Epoch milliseconds. */
  at: number;
}

export interface BaseInfo {
  fullName: string;
  /** `YYYY-MM-DD`. */
  dateOfBirth: string;
  gender: string;
  /** PAN (India) or NIK (Indonesia); masked (`******234F`) when read back. */
  idNumber: string;
}

export interface PersonalInfo {
  education: string;
  maritalStatus: string;
  residenceType: string;
  regionCode: string;
  cityCode: string;
  address: string;
  postalCode: string;
}

export interface JobInfo {
  employmentType: string;
  employerName: string;
  /** Minor units, per the market's `incomePeriod`. */
  income: number;
  payDay: number;
}

export interface ExtendedInfo {
  contact1Name: string;
  contact1Relation: string;
  contact1Phone: string;
  contact2Name: string;
  contact2Relation: string;
  contact2Phone: string;
  /** "I have told these people and they agree to be contacted about this loan": must be true. */
  consent: boolean;
}

export interface BankInfo {
  bankCode: string;
  /** Digits; masked (`**** **** 4321`) when read back. */
  accountNumber: string;
  /** Not needed when `accountNumber` is the masked value sent back (the stored number is kept). */
  accountNumberConfirm?: string;
  /** India only. */
  ifsc?: string;
}

export interface StepData {
  base: BaseInfo;
  personal: PersonalInfo;
  job: JobInfo;
  extended: ExtendedInfo;
  bank: BankInfo;
}

/** `GET /certification/{step}`: ID and account numbers masked. */
export interface CertificationStepAnswer<S extends CertStep = CertStep> {
  step: S;
  certStatus: CertStatus;
  data: StepData[S] | null;
}

/** `POST /certification/{step}`: the saved step (unmasked: the borrower's own screen) and where to go next. */
export interface CertificationStepSaved<S extends CertStep = CertStep> extends CertificationStepAnswer<S> {
  next: CertStep | null;
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

export function saveCertificationStep<S extends CertStep>(api: HttpClient, step: S, body: StepData[S]): Promise<CertificationStepSaved<S>> {
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
  return useMutation<CertificationStepSaved<S>, ApiError, StepData[S]>({
    mutationFn: (body) => saveCertificationStep(api, step, body),
    // The answer carries the unmasked numbers: it is not put in the cache, whose copies stay masked. The
    // statuses, the log and the saved steps are read again, and the home screen's summary and eligibility
    // (which count steps and read the income), without holding up the move to the next step.
    onSuccess: () => {
      for (const queryKey of [queryKeys.certification, queryKeys.home, queryKeys.recommended]) void queryClient.invalidateQueries({ queryKey });
    },
  });
}
