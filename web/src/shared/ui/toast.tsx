// A small toast instead of antd-mobile's Toast (which would pull in its runtime and styles for one
// message). One message at a time; a new one replaces the old and restarts the clock.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

export type ToastKind = 'info' | 'success' | 'error';

export interface ToastOptions {
  kind?: ToastKind;
  /** How long the message stays, in ms. SPEC.md §9: 1 s. */
  durationMs?: number;
}

export const TOAST_DURATION_MS = 1000;

interface ToastState {
  id: number;
  text: string;
  kind: ToastKind;
}

type ShowToast = (text: string, options?: ToastOptions) => void;

const ToastContext = createContext<ShowToast | null>(null);
const DismissContext = createContext<(() => void) | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<ToastState | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const nextId = useRef(1);

  const show = useCallback<ShowToast>((text, options = {}) => {
    clearTimeout(timer.current);
    setToast({ id: nextId.current++, text, kind: options.kind ?? 'info' });
    timer.current = setTimeout(() => setToast(null), options.durationMs ?? TOAST_DURATION_MS);
  }, []);

  const dismiss = useCallback(() => {
    clearTimeout(timer.current);
    setToast(null);
  }, []);

  useEffect(() => () => clearTimeout(timer.current), []);

  const value = useMemo(() => show, [show]);
  return (
    <DismissContext.Provider value={dismiss}>
      <ToastContext.Provider value={value}>
        {children}
        {/* The live region is always in the page, so screen readers announce text put into it. */}
        <div className="kilat-toast-region" role="status" aria-live="polite" aria-atomic="true">
          {toast && (
            <div key={toast.id} className={`kilat-toast kilat-toast--${toast.kind}`} data-testid="toast">
              {toast.text}
            </div>
          )}
        </div>
      </ToastContext.Provider>
    </DismissContext.Provider>
  );
}

export function useToast(): ShowToast {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast needs a <ToastProvider>');
  return show;
}

/** Takes the current message away, e.g. when the screen it was about is left. */
export function useDismissToast(): () => void {
  const dismiss = useContext(DismissContext);
  if (!dismiss) throw new Error('useDismissToast needs a <ToastProvider>');
  return dismiss;
}
