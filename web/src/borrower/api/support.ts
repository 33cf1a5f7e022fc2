import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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

// Under `borrower` with the rest, so that logging out forgets it; apart from `queryKeys.complaints` (read `exact`).
const WAITING_IMAGES_KEY = ['borrower', 'complaints', 'images', 'waiting'] as const;

/** The borrower's uploads that no complaint or reply holds yet (those of the last day, oldest first). They count
 * against the photo limit, so a form left before sending shows them again, to send or to remove. */
export function useWaitingComplaintImages() {
  const api = useApiClient();
  return useQuery({ queryKey: WAITING_IMAGES_KEY, queryFn: () => api.get<ComplaintImage[]>(`${COMPLAINTS_PATH}/images`) });
}

/** Uploads that wait no more (sent, or removed): out of the waiting list at once, and the list read again. */
export function forgetWaitingImages(client: QueryClient, imageIds: readonly string[]): void {
  client.setQueryData<ComplaintImage[]>(WAITING_IMAGES_KEY, (images) => images?.filter((image) => !imageIds.includes(image.imageId)));
  void client.invalidateQueries({ queryKey: WAITING_IMAGES_KEY });
}

/** The waiting list changed (a photo uploaded, a removal failed): read again when a form next opens, or now if one is open. */
export function waitingImagesChanged(client: QueryClient, options: { now: boolean }): void {
  void client.invalidateQueries({ queryKey: WAITING_IMAGES_KEY, refetchType: options.now ? 'active' : 'none' });
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
    onSuccess: (detail, request) => {
      forgetWaitingImages(client, request.imageIds ?? []);
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
    onSuccess: (detail, request) => {
      // Before the form empties: what was sent must not come back from the list as still waiting.
      forgetWaitingImages(client, request.imageIds);
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
