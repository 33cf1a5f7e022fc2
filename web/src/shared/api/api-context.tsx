import { createContext, useContext, type ReactNode } from 'react';
import type { HttpClient } from './http';

const ApiContext = createContext<HttpClient | null>(null);

export function ApiProvider({ client, children }: { client: HttpClient; children: ReactNode }) {
  return <ApiContext.Provider value={client}>{children}</ApiContext.Provider>;
}

export function useApiClient(): HttpClient {
  const client = useContext(ApiContext);
  if (!client) throw new Error('useApiClient needs an <ApiProvider>');
  return client;
}
