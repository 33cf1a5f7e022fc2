import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApiClient } from '@/shared/api/api-context';
import { CLIENT_ERROR, type ApiError, type HttpClient } from '@/shared/api/http';
import { paymentPath } from './payment';
import { queryKeys } from './query-keys';
import type { Payment, PaymentMethod } from './types';

/**
 * The UTR's format, checked as the server checks it (`check_utr`): letters taken in capitals; UPI 12 digits; a bank
 * transfer 12 digits (IMPS) or 16 or 22 letters and digits (NEFT, RTGS). Answers the UTR to send, or null.
 */
export function normalUtr(method: PaymentMethod, raw: string): string | null {
  const utr = raw.trim().toUpperCase();
  const digits = /^\d{12}$/.test(utr);
  const alnum = /^[A-Z0-9]{16}$/.test(utr) || /^[A-Z0-9]{22}$/.test(utr);
  if (method === 'upi') return digits ? utr : null;
  if (method === 'bank_transfer') return digits || alnum ? utr : null;
  return null;
}

/** Records the transfer's UTR (`POST /payments/{paymentId}/utr`); the payment then waits for finance. */
export function submitUtr(api: HttpClient, paymentId: string, utr: string): Promise<Payment> {
  return api.postJson<Payment>(`${paymentPath(paymentId)}/utr`, { utr });
}

export function useSubmitUtr(paymentId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Payment, ApiError, string>({
    mutationFn: (utr) => submitUtr(api, paymentId, utr),
    // The loan now says "payment received, verifying": what the payment's page shows of it (its repayment answer, with
    // the UTR's card) is asked again first, and the payment turns to "verifying" once that answered, so the page
    // changes once, whole. The mutation is pending until then; a refresh that fails leaves the card out.
    onSuccess: async (payment) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.order(payment.orderNo) });
      queryClient.setQueryData(queryKeys.payment(payment.paymentId), payment);
    },
    // "No longer takes a UTR" after a lost answer usually means the first send was recorded: the payment is already
    // "verifying". A lost or timed-out answer may have been recorded too. Either way the payment and its loan are read
    // again at once, not on the next poll, so the page shows what the server holds instead of a form that looks open.
    // On payment_not_open the mutation stays pending until both answered (the loan first, as above), so the page turns
    // to "verifying" whole, without the refusal showing under the form meanwhile; a network failure shows at once.
    onError: async (error) => {
      const orderNo = queryClient.getQueryData<Payment>(queryKeys.payment(paymentId))?.orderNo;
      const refresh = async () => {
        if (orderNo) await queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
        await queryClient.invalidateQueries({ queryKey: queryKeys.payment(paymentId) });
      };
      if (error.code === 'payment_not_open') await refresh();
      else if (error.code === CLIENT_ERROR.network || error.code === CLIENT_ERROR.timeout) void refresh();
    },
  });
}

/**
 * Corrects the UTR of a payment waiting for finance (`PUT /payments/{paymentId}/utr`), while finance has not acted:
 * after it did, `409 utr_locked`.
 */
export function correctUtr(api: HttpClient, paymentId: string, utr: string): Promise<Payment> {
  return api.putJson<Payment>(`${paymentPath(paymentId)}/utr`, { utr });
}

export function useCorrectUtr(paymentId: string, orderNo: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Payment, ApiError, string>({
    mutationFn: (utr) => correctUtr(api, paymentId, utr),
    onSuccess: (payment) => {
      queryClient.setQueryData(queryKeys.payment(payment.paymentId), payment);
      void queryClient.invalidateQueries({ queryKey: queryKeys.repayment(orderNo) });
    },
    onError: (error) => {
      // Finance acted meanwhile: the loan and the payment say what became of it.
      if (error.code === 'utr_locked') {
        void queryClient.invalidateQueries({ queryKey: queryKeys.order(orderNo) });
        void queryClient.invalidateQueries({ queryKey: queryKeys.payment(paymentId) });
      }
    },
  });
}
