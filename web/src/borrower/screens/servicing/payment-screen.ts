import type { Payment } from '../../api/payment';

/** Where a payment is shown: Dragonpay's on its payment-instructions page, every other on the payment page. */
export function paymentScreen(payment: Pick<Payment, 'paymentId' | 'method'>): string {
  const id = encodeURIComponent(payment.paymentId);
  return payment.method === 'dragonpay' ? `/dragonpayPaymentInstructions/${id}` : `/payments/${id}`;
}
