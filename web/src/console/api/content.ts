// The admins' content (docs/API-CONSOLE.md): the FAQ (list, create, edit, move, delete) and the site's claims per market.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, FaqDeleted, FaqDirection, FaqEntry, FaqMoved, FaqWrite, SiteClaims, SiteClaimsWrite } from './types';

export function useFaq() {
  const api = useApiClient();
  return useQuery<FaqEntry[], ApiError>({
    queryKey: queryKeys.faq,
    queryFn: () => api.get<FaqEntry[]>(`${CONSOLE_API}/faq`),
    staleTime: 0,
  });
}

const faqPath = (id: string) => `${CONSOLE_API}/faq/${encodeURIComponent(id)}`;

/** Creates (`id` null) or edits an FAQ entry; the list is read again after. */
export function useSaveFaq() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<FaqEntry, ApiError, { id: string | null; entry: FaqWrite }>({
    mutationFn: ({ id, entry }) =>
      id === null ? api.postJson<FaqEntry>(`${CONSOLE_API}/faq`, entry) : api.putJson<FaqEntry>(faqPath(id), entry),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.faq }),
  });
}

/**
 * Moves an entry one place up or down in its language and category: one request, which the server makes atomic
 * (both positions or neither); the list is read again after, moved or refused.
 */
export function useMoveFaq() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<FaqMoved, ApiError, { id: string; direction: FaqDirection }>({
    mutationFn: ({ id, direction }) => api.postJson<FaqMoved>(`${faqPath(id)}/move`, { direction }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.faq }),
  });
}

export function useDeleteFaq() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<FaqDeleted, ApiError, string>({
    mutationFn: (id) => api.delete<FaqDeleted>(faqPath(id)),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.faq }),
  });
}

export function useSiteClaims() {
  const api = useApiClient();
  return useQuery<SiteClaims[], ApiError>({
    queryKey: queryKeys.siteClaims,
    queryFn: () => api.get<SiteClaims[]>(`${CONSOLE_API}/site/claims`),
    staleTime: 0,
  });
}

/** Changes one market's claims; both markets are read again after. */
export function useSaveSiteClaims() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<SiteClaims, ApiError, { market: ApiMarket; claims: SiteClaimsWrite }>({
    mutationFn: ({ market, claims }) => api.putJson<SiteClaims>(`${CONSOLE_API}/site/claims/${market}`, claims),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.siteClaims }),
  });
}
