// The marketing figures of each market (PRODUCT.md §1), in minor units (paise, sen). The claims (payout
// speed, users) are runtime settings instead: `payoutClaim`, `usersClaim`.
import type { MarketId } from '@/shared/market/market';

export interface OfferFigures {
  minAmount: number;
  maxAmount: number;
  /** India: salaried, at least this a month. */
  minMonthlySalary?: number;
  /** Indonesia: at least this a year. */
  minAnnualIncome?: number;
}

export const OFFER_FIGURES: Record<MarketId, OfferFigures> = {
  in: { minAmount: 2_000_00, maxAmount: 80_000_00, minMonthlySalary: 12_000_00 },
  id: { minAmount: 1_000_000_00, maxAmount: 15_000_000_00, minAnnualIncome: 5_000_000_00 },
};
