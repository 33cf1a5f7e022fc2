// Support's work (docs/API-CONSOLE.md): the complaint queue, a complaint's conversation, replying and closing, and the
// contact form's messages with their handled flag.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import { CONSOLE_API } from './session';
import type { ContactMessage, Handled, QueuedComplaint, SupportComplaint } from './types';

const keys = {
  complaints: (status: string) => ['console', 'complaints', status] as const,
  complaint: (ticketNo: string) => ['console', 'complaint', ticketNo] as const,
  contact: (status: string) => ['console', 'contact-messages', status] as const,
};

export function complaintPath(ticketNo: string): string {
  return `${CONSOLE_API}/complaints/${encodeURIComponent(ticketNo)}`;
}

export function complaintImageUrl(imageId: string): string {
  return `${CONSOLE_API}/complaint-images/${encodeURIComponent(imageId)}`;
}

export function useComplaintQueue(status: 'open' | 'all') {
  const api = useApiClient();
  return useQuery<QueuedComplaint[], ApiError>({
    queryKey: keys.complaints(status),
    queryFn: () => api.get<QueuedComplaint[]>(`${CONSOLE_API}/complaints?status=${status}`),
    staleTime: 0,
    refetchInterval: 30_000,
  });
}

export function useSupportComplaint(ticketNo: string) {
  const api = useApiClient();
  return useQuery<SupportComplaint, ApiError>({
    queryKey: keys.complaint(ticketNo),
    queryFn: () => api.get<SupportComplaint>(complaintPath(ticketNo)),
  });
}

function useComplaintAction<V>(ticketNo: string, send: (v: V) => Promise<SupportComplaint>) {
  const client = useQueryClient();
  return useMutation<SupportComplaint, ApiError, V>({
    mutationFn: send,
    onSuccess: (detail) => {
      client.setQueryData(keys.complaint(ticketNo), detail);
      void client.invalidateQueries({ queryKey: ['console', 'complaints'] });
    },
  });
}

export function useReply(ticketNo: string) {
  const api = useApiClient();
  return useComplaintAction<string>(ticketNo, (body) => api.postJson<SupportComplaint>(`${complaintPath(ticketNo)}/reply`, { body }));
}

export function useCloseComplaint(ticketNo: string) {
  const api = useApiClient();
  return useComplaintAction<void>(ticketNo, () => api.postJson<SupportComplaint>(`${complaintPath(ticketNo)}/close`, {}));
}

export function useContactMessages(status: 'waiting' | 'all') {
  const api = useApiClient();
  return useQuery<ContactMessage[], ApiError>({
    queryKey: keys.contact(status),
    queryFn: () => api.get<ContactMessage[]>(`${CONSOLE_API}/contact-messages?status=${status}`),
    staleTime: 0,
  });
}

export function useMarkHandled() {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<Handled, ApiError, string>({
    mutationFn: (id) => api.postJson<Handled>(`${CONSOLE_API}/contact-messages/${encodeURIComponent(id)}/handled`, {}),
    onSettled: () => void client.invalidateQueries({ queryKey: ['console', 'contact-messages'] }),
  });
}
