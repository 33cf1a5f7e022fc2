import { describe, expect, it } from 'vitest';
import { requestBody } from './form-model';

const rules = (incomePeriod: 'month' | 'year') => ({ market: {} as never, enums: { incomePeriod } as never });
const job = (income: string) => ({ employmentType: 'salaried_private', employerName: 'PT Maju', income, payDay: '25' });

describe('requestBody of the job step', () => {
  it('sends a stored yearly income back as stored when its month, shown rounded, was not changed', () => {
    // Rp 90,000,005 a year (no multiple of 12) shows as Rp 7,500,000 a month; ×12 would move it by 5 rupiah.
    const saved = { employmentType: 'salaried_private', employerName: 'PT Maju', income: 9_000_000_500, payDay: 25 };
    expect(requestBody('job', job('7500000'), rules('year'), saved).income).toBe(9_000_000_500);
    // A month the borrower changed is sent as typed, ×12.
    expect(requestBody('job', job('8000000'), rules('year'), saved).income).toBe(9_600_000_000);
    // Without a stored step, as typed.
    expect(requestBody('job', job('7500000'), rules('year')).income).toBe(9_000_000_000);
  });

  it('sends a monthly income as typed', () => {
    expect(requestBody('job', job('45000'), rules('month')).income).toBe(4_500_000);
  });
});
