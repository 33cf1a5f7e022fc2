import { createContext, useContext, type ReactNode } from 'react';
import type { CsrfStore } from './csrf';

const CsrfContext = createContext<CsrfStore | null>(null);

export function CsrfProvider({ store, children }: { store: CsrfStore; children: ReactNode }) {
  return <CsrfContext.Provider value={store}>{children}</CsrfContext.Provider>;
}

export function useCsrf(): CsrfStore {
  const store = useContext(CsrfContext);
  if (!store) throw new Error('useCsrf needs a <CsrfProvider>');
  return store;
}
