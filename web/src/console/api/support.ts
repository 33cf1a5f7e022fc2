// Support's work (docs/API-CONSOLE.md): the complaint queue, a complaint's conversation, replying and closing, and the
// contact form's messages with their handled flag.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import { CONSOLE_API } from './session';
import type { Assignee, CannedReply, CannedReplyWrite, ComplaintQueue, ContactMessagePage, FaqDeleted, Handled, SupportComplaint } from './types';

export type QueueStatus = 'open' | 'all';
export type QueueAssignee = 'all' | 'mine' | 'unassigned';

const keys = {
  complaints: (status: string, assignee: string, page: number) => ['console', 'complaints', status, assignee, page] as const,
  assignees: (market: string) => ['console', 'complaint-assignees', market] as const,
  canned: ['console', 'canned-replies'] as const,
  complaint: (ticketNo: string) => ['console', 'complaint', ticketNo] as const,
  contact: (status: string, page: number) => ['console', 'contact-messages', status, page] as const,
};

export function complaintPath(ticketNo: string): string {
  return `${CONSOLE_API}/complaints/${encodeURIComponent(ticketNo)}`;
}

export function complaintImageUrl(imageId: string): string {
  return `${CONSOLE_API}/complaint-images/${encodeURIComponent(imageId)}`;
}

/** Complaints a page shows. */
export const COMPLAINTS_PAGE_SIZE = 50;

/** A page of support's queue with its total (`GET /complaints`). */
export function useComplaintQueue(status: QueueStatus, assignee: QueueAssignee = 'all', page = 1) {
  const api = useApiClient();
  return useQuery<ComplaintQueue, ApiError>({
    queryKey: keys.complaints(status, assignee, page),
    queryFn: () =>
      api.get<ComplaintQueue>(`${CONSOLE_API}/complaints?status=${status}&assignee=${assignee}&page=${page}&pageSize=${COMPLAINTS_PAGE_SIZE}`),
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

/** Replies, naming the last message read (`seenMessageId`): when the borrower wrote after it, the complaint stays open. */
export function useReply(ticketNo: string) {
  const api = useApiClient();
  return useComplaintAction<{ body: string; seenMessageId: string | null }>(ticketNo, ({ body, seenMessageId }) =>
    api.postJson<SupportComplaint>(`${complaintPath(ticketNo)}/reply`, seenMessageId === null ? { body } : { body, seenMessageId }),
  );
}

export function useCloseComplaint(ticketNo: string) {
  const api = useApiClient();
  return useComplaintAction<void>(ticketNo, () => api.postJson<SupportComplaint>(`${complaintPath(ticketNo)}/close`, {}));
}

/** Assigns the complaint (`null` unassigns). */
export function useAssign(ticketNo: string) {
  const api = useApiClient();
  return useComplaintAction<string | null>(ticketNo, (assigneeId) =>
    api.postJson<SupportComplaint>(`${complaintPath(ticketNo)}/assign`, { assigneeId }),
  );
}

/** The operators a complaint of `market` may be assigned to: those who work in that market. */
export function useAssignees(market: string) {
  const api = useApiClient();
  return useQuery<Assignee[], ApiError>({
    queryKey: keys.assignees(market),
    queryFn: () => api.get<Assignee[]>(`${CONSOLE_API}/complaint-assignees?market=${encodeURIComponent(market)}`),
    staleTime: 60_000,
  });
}

/** Support's canned replies, both languages, by language and title. */
export function useCannedReplies() {
  const api = useApiClient();
  return useQuery<CannedReply[], ApiError>({
    queryKey: keys.canned,
    queryFn: () => api.get<CannedReply[]>(`${CONSOLE_API}/canned-replies`),
  });
}

const cannedPath = (id: string) => `${CONSOLE_API}/canned-replies/${encodeURIComponent(id)}`;

/** Adds (`id` null) or changes a canned reply. */
export function useSaveCannedReply() {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<CannedReply, ApiError, { id: string | null; reply: CannedReplyWrite }>({
    mutationFn: ({ id, reply }) =>
      id === null ? api.postJson<CannedReply>(`${CONSOLE_API}/canned-replies`, reply) : api.putJson<CannedReply>(cannedPath(id), reply),
    onSettled: () => void client.invalidateQueries({ queryKey: keys.canned }),
  });
}

export function useDeleteCannedReply() {
  const api = useApiClient();
  const client = useQueryClient();
  return useMutation<FaqDeleted, ApiError, string>({
    mutationFn: (id) => api.delete<FaqDeleted>(cannedPath(id)),
    onSettled: () => void client.invalidateQueries({ queryKey: keys.canned }),
  });
}

/** Contact messages a page shows. */
export const CONTACT_PAGE_SIZE = 50;

/** A page of the contact messages with its total (`GET /contact-messages`): waiting ones oldest first, all newest first. */
export function useContactMessages(status: 'waiting' | 'all', page = 1) {
  const api = useApiClient();
  return useQuery<ContactMessagePage, ApiError>({
    queryKey: keys.contact(status, page),
    queryFn: () => api.get<ContactMessagePage>(`${CONSOLE_API}/contact-messages?status=${status}&page=${page}&pageSize=${CONTACT_PAGE_SIZE}`),
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
