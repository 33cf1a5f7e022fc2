// The admins' work (docs/API-CONSOLE.md): products (list, create, edit as a new version, disable, enable) and
// operators (list, create, roles, disable, enable, password reset).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import type { ApiError, Json } from '@/shared/api/http';
import { queryKeys } from './query-keys';
import { CONSOLE_API } from './session';
import type { ApiMarket, ConsoleProduct, OperatorAccount, ProductPreview, Role } from './types';

export function useProducts() {
  const api = useApiClient();
  return useQuery<ConsoleProduct[], ApiError>({
    queryKey: queryKeys.products,
    queryFn: () => api.get<ConsoleProduct[]>(`${CONSOLE_API}/products`),
    staleTime: 0,
  });
}

const productPath = (code: string) => `${CONSOLE_API}/products/${encodeURIComponent(code)}`;

/**
 * Creates (`edit` null) or edits a product from its definition, as a new version of the one opened (`edit.version`:
 * another admin's version saved since is refused, `product_changed`); the list is read again after.
 */
export function useSaveProduct() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<ConsoleProduct, ApiError, { edit: { code: string; version: number } | null; definition: Json }>({
    mutationFn: ({ edit, definition }) =>
      edit === null
        ? api.postJson<ConsoleProduct>(`${CONSOLE_API}/products`, definition)
        : api.putJson<ConsoleProduct>(`${productPath(edit.code)}?baseVersion=${edit.version}`, definition),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.products }),
  });
}

/** What a definition would offer today (nothing is stored); no request while `request` is null. */
export function useProductPreview(request: { definition: Json; amount?: number; termCode?: string } | null) {
  const api = useApiClient();
  return useQuery<ProductPreview, ApiError>({
    queryKey: [...queryKeys.products, 'preview', request],
    queryFn: () => api.postJson<ProductPreview>(`${CONSOLE_API}/products/preview`, request as Json),
    enabled: request !== null,
    retry: false,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
}

export function useProductAvailability() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<ConsoleProduct, ApiError, { code: string; enable: boolean }>({
    mutationFn: ({ code, enable }) => api.postJson<ConsoleProduct>(`${productPath(code)}/${enable ? 'enable' : 'disable'}`, {}),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.products }),
  });
}

export function useOperators() {
  const api = useApiClient();
  return useQuery<OperatorAccount[], ApiError>({
    queryKey: queryKeys.operators,
    queryFn: () => api.get<OperatorAccount[]>(`${CONSOLE_API}/operators`),
    staleTime: 0,
  });
}

const operatorPath = (id: string) => `${CONSOLE_API}/operators/${encodeURIComponent(id)}`;

export type OperatorChange =
  | { kind: 'create'; username: string; password: string; roles: Role[]; markets: ApiMarket[] }
  | { kind: 'roles'; id: string; roles: Role[] }
  | { kind: 'markets'; id: string; markets: ApiMarket[] }
  | { kind: 'disable' | 'enable'; id: string }
  | { kind: 'password'; id: string; password: string };

/** Every change to an operator; the list is read again after. */
export function useChangeOperator() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<OperatorAccount, ApiError, OperatorChange>({
    mutationFn: (change) => {
      switch (change.kind) {
        case 'create':
          return api.postJson<OperatorAccount>(`${CONSOLE_API}/operators`, {
            username: change.username,
            password: change.password,
            roles: change.roles,
            markets: change.markets,
          });
        case 'roles':
          return api.putJson<OperatorAccount>(`${operatorPath(change.id)}/roles`, { roles: change.roles });
        case 'markets':
          return api.putJson<OperatorAccount>(`${operatorPath(change.id)}/markets`, { markets: change.markets });
        case 'password':
          return api.postJson<OperatorAccount>(`${operatorPath(change.id)}/password`, { password: change.password });
        default:
          return api.postJson<OperatorAccount>(`${operatorPath(change.id)}/${change.kind}`, {});
      }
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: queryKeys.operators }),
  });
}
