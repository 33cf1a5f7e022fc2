import { sessionStorageOrNull } from '../../boot';
import { forgetPaymentKey, paymentKeyFor, type PaymentOf } from '../../api/idempotency-key';
import type { Payment } from '../../api/payment';

/** Where a payment is shown: Dragonpay's on its payment-instructions page, every other on the payment page. */
export function paymentScreen(payment: Pick<Payment, 'paymentId' | 'method'>): string {
  const id = encodeURIComponent(payment.paymentId);
  return payment.method === 'dragonpay' ? `/dragonpayPaymentInstructions/${id}` : `/payments/${id}`;
}

/**
 * Starts the payment `of` under its kept key (`idempotency-key.ts`), then hands over the payment. The server answers a
 * known key with its payment whatever became of it: a kept key whose payment finance has since refused is forgotten,
 * and the payment started once more under a new one.
 */
export function startPayment(
  of: PaymentOf,
  send: (idempotencyKey: string, onPayment: (payment: Payment) => void) => void,
  onPayment: (payment: Payment) => void,
): void {
  const attempt = (again: boolean) =>
    send(paymentKeyFor(of, sessionStorageOrNull()), (payment) => {
      if (payment.status === 'rejected' && !again) {
        forgetPaymentKey(of, sessionStorageOrNull());
        attempt(true);
      } else onPayment(payment);
    });
  attempt(false);
}
