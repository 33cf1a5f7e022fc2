import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, HttpClient } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import type { ComplaintDetail, ComplaintImage, ComplaintInit, ComplaintSaveRequest, ComplaintSummary, CustomerService, FaqEntry } from './types';

const BASE = '/api/v1/borrower';
export const COMPLAINTS_PATH = `${BASE}/complaints`;

export function complaintPath(ticketNo: string): string {
  return `${COMPLAINTS_PATH}/${encodeURIComponent(ticketNo)}`;
}

/** Where an image of the borrower's is read (the session cookie authenticates it). */
export function complaintImageUrl(imageId: string): string {
  return `${COMPLAINTS_PATH}/images/${encodeURIComponent(imageId)}`;
}

export function useCustomerService() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.customerService, queryFn: () => api.get<CustomerService>(`${BASE}/customer-service`) });
}

export function useFaq() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.faq, queryFn: () => api.get<FaqEntry[]>(`${BASE}/faq`) });
}

export function useComplaintInit() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.complaintInit, queryFn: () => api.get<ComplaintInit>(`${COMPLAINTS_PATH}/init`) });
}

export function useComplaints() {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.complaints, queryFn: () => api.get<ComplaintSummary[]>(COMPLAINTS_PATH) });
}

export function useComplaint(ticketNo: string) {
  const api = useApiClient();
  return useQuery({ queryKey: queryKeys.complaint(ticketNo), queryFn: () => api.get<ComplaintDetail>(complaintPath(ticketNo)) });
}

/** Uploads one photo; the server checks its content and answers its id. */
export function uploadComplaintImage(api: HttpClient, file: Blob): Promise<ComplaintImage> {
  return api.postBytes<ComplaintImage>(`${COMPLAINTS_PATH}/images`, file, file.type);
}

export function deleteComplaintImage(api: HttpClient, imageId: string): Promise<unknown> {
  return api.delete(complaintImageUrl(imageId));
}

export function useSaveComplaint() {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<ComplaintDetail, ApiError, ComplaintSaveRequest>({
    mutationFn: (request) => api.postJson<ComplaintDetail>(COMPLAINTS_PATH, request),
    onSuccess: (detail) => {
      client.setQueryData(queryKeys.complaint(detail.ticketNo), detail);
      void client.invalidateQueries({ queryKey: queryKeys.complaints, exact: true });
    },
  });
}

/** The borrower's reply to their complaint (text and photos); the answer is the complaint with the reply. */
export function useReplyToComplaint(ticketNo: string) {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<ComplaintDetail, ApiError, { body: string; imageIds: string[] }>({
    mutationFn: (request) => api.postJson<ComplaintDetail>(`${complaintPath(ticketNo)}/replies`, request),
    onSuccess: (detail) => {
      client.setQueryData(queryKeys.complaint(ticketNo), detail);
      void client.invalidateQueries({ queryKey: queryKeys.complaints, exact: true });
    },
    onError: (error) => {
      // Closed meanwhile: the screen shows it closed.
      if (error.code === 'complaint_closed') void client.invalidateQueries({ queryKey: queryKeys.complaint(ticketNo) });
    },
  });
}

export function useScoreComplaint(ticketNo: string) {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<ComplaintDetail, ApiError, { score: number; comment?: string }>({
    mutationFn: (request) => api.postJson<ComplaintDetail>(`${complaintPath(ticketNo)}/score`, request),
    onSuccess: (detail) => client.setQueryData(queryKeys.complaint(ticketNo), detail),
  });
}
