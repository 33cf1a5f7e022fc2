import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
import { KFS_IN, PRODUCT_ID, PRODUCT_IN } from './fixtures.test-data';

const urlAmount = () => new URLSearchParams(window.location.search).get('amount');

function quoting(product: typeof PRODUCT_IN | typeof PRODUCT_ID) {
  return fakeApi({
    [`GET /api/v1/borrower/products/${product.code}`]: () => ok(product),
    'POST /api/v1/borrower/quote': (call) => {
      const body = call.body as { amount: number; termCode: string };
      return ok({ ...KFS_IN, productCode: product.code, sanctionedAmount: body.amount, termCode: body.termCode });
    },
  });
}

describe('typing an amount on the product page', () => {
  it('types rupees on the money keyboard, quotes them in paise and keeps them in the URL', async () => {
    const api = quoting(PRODUCT_IN);
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/in-flexi-14d?lang=1');
    await user.click(await screen.findByRole('button', { name: '₹5,000: type an amount' }));
    expect(screen.getByRole('group', { name: 'Amount keyboard' })).toBeInTheDocument();
    expect(screen.getByText('From ₹5,000 to ₹40,000, in steps of ₹1,000.')).toBeInTheDocument();

    for (const key of ['1', '2', '0', '0', '0']) await user.click(screen.getByRole('button', { name: key }));
    expect(screen.getByText('₹12,000')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'OK' }));

    expect(screen.queryByRole('group', { name: 'Amount keyboard' })).toBeNull();
    expect(window.location.search).toBe('?amount=1200000&term=14dx3');
    // Focus goes back to the amount, now the new one.
    expect(screen.getByRole('button', { name: '₹12,000: type an amount' })).toHaveFocus();
    await waitFor(() =>
      expect(api.callsTo('POST', '/api/v1/borrower/quote').map((call) => call.body)).toContainEqual({
        productCode: 'in-flexi-14d',
        amount: 1200000,
        termCode: '14dx3',
      }),
    );
    expect(screen.getByRole('link', { name: 'Apply' })).toHaveAttribute('href', '/app/products/in-flexi-14d/kfs?amount=1200000&term=14dx3');
  });

  it('refuses an amount outside the product, or off its steps, and says which amounts would do', async () => {
    quoting(PRODUCT_IN).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/in-flexi-14d?amount=600000&term=14dx3&lang=1');
    await user.click(await screen.findByRole('button', { name: /: type an amount/ }));

    await user.keyboard('45000{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('Enter an amount from ₹5,000 to ₹40,000.');
    expect(urlAmount()).toBe('600000');

    await user.keyboard('{Backspace}{Backspace}{Backspace}{Backspace}{Backspace}');
    await user.keyboard('12500.5{Enter}');
    expect(screen.getByRole('alert')).toHaveTextContent('The amount goes up in steps of ₹1,000: try ₹12,000 or ₹13,000.');
    expect(urlAmount()).toBe('600000');

    // Typing again clears the message; hiding leaves the amount as it was.
    await user.keyboard('{Backspace}');
    expect(screen.queryByRole('alert')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Hide keyboard' }));
    expect(screen.queryByRole('group', { name: 'Amount keyboard' })).toBeNull();
    expect(screen.getByRole('button', { name: '₹6,000: type an amount' })).toBeInTheDocument();
    expect(urlAmount()).toBe('600000');
  });

  it('takes rupiah with the Indonesian decimal comma', async () => {
    quoting(PRODUCT_ID).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/id-kilat-30?lang=2');
    await user.click(await screen.findByRole('button', { name: /: ketik jumlah/ }));
    expect(screen.getByRole('button', { name: 'Koma desimal' })).toHaveTextContent(',');
    await user.keyboard('1500000');
    expect(screen.getByText(/Rp\s1\.500\.000/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(window.location.search).toBe('?amount=150000000&term=14d');
  });
});
