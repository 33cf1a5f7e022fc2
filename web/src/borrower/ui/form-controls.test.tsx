import '@/borrower/antd-render';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { MARKETS } from '@/shared/market/market';
import { AccountNumberInput, groupInFours } from './account-number-input';
import { DateOfBirthField, parseIsoDate, toIsoDate } from './date-of-birth-field';
import { DigitsInput, onlyDigits } from './digits-input';
import { editMasked } from './masked-value';
import { MoneyInput, currencySymbol, fromMinorUnits, toMinorUnits } from './money-input';
import { SelectField } from './select-field';
import { TextAreaField } from './text-area-field';

/** Renders a control with its value in state, and reports every value it hands out. */
function Harness<P extends { value: string; onChange: (value: string) => void }>({
  Control,
  initial = '',
  props,
  seen,
}: {
  Control: (props: P) => React.ReactNode;
  initial?: string;
  props: Omit<P, 'value' | 'onChange'>;
  seen: string[];
}) {
  const [value, setValue] = useState(initial);
  const change = (next: string) => {
    seen.push(next);
    setValue(next);
  };
  return <Control {...({ ...props, value, onChange: change } as unknown as P)} />;
}

describe('DigitsInput', () => {
  it('keeps digits only, up to its length', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={DigitsInput} props={{ id: 'pin', label: 'PIN code', maxLength: 6 }} seen={seen} />);
    const input = screen.getByLabelText('PIN code');
    await user.type(input, '40-00a01 99');
    expect(input).toHaveValue('400001');
    expect(seen.at(-1)).toBe('400001');
    expect(input).toHaveAttribute('inputmode', 'numeric');
  });

  it('shows an error and a hint tied to the input', () => {
    render(<DigitsInput id="d" label="Pay day" value="" onChange={() => undefined} error="Enter a day from 1 to 31." hint="Day of the month" />);
    const input = screen.getByLabelText('Pay day');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription('Enter a day from 1 to 31. Day of the month');
  });

  it('starts a new number when a masked saved value is edited', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={DigitsInput} initial="************0001" props={{ id: 'nik', label: 'NIK', maxLength: 16 }} seen={seen} />);
    const input = screen.getByLabelText('NIK');
    expect(input).toHaveValue('************0001');
    await user.type(input, '3');
    expect(input).toHaveValue('3');
    expect(onlyDigits('12 34-56', 4)).toBe('1234');
  });
});

describe('editMasked', () => {
  it.each([
    ['******234F', '******234FA', 'A'],
    ['******234F', '******234', ''],
    ['******234F', 'ABCPE1234F', 'ABCPE1234F'],
    ['ABC', 'ABCD', 'ABCD'],
  ])('%s edited to %s gives %s', (previous, next, expected) => {
    expect(editMasked(previous, next)).toBe(expected);
  });
});

describe('AccountNumberInput', () => {
  it('shows digits in groups of four while the value stays plain digits', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={AccountNumberInput} props={{ id: 'acc', label: 'Account number', maxDigits: 18 }} seen={seen} />);
    const input = screen.getByLabelText('Account number');
    await user.type(input, '1234-5678 9012x');
    expect(input).toHaveValue('1234 5678 9012');
    expect(seen.at(-1)).toBe('123456789012');
    expect(seen.every((value) => /^\d*$/.test(value))).toBe(true);
  });

  it('stops at the most digits and takes a pasted number', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={AccountNumberInput} props={{ id: 'acc', label: 'Account number', maxDigits: 10 }} seen={seen} />);
    const input = screen.getByLabelText('Account number');
    await user.click(input);
    await user.paste('0123 4567 8901 2345');
    expect(input).toHaveValue('0123 4567 89');
    expect(seen.at(-1)).toBe('0123456789');
  });

  it('deletes the digit before a separator and keeps the caret after the digit it was after', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={AccountNumberInput} initial="123456789" props={{ id: 'acc', label: 'Account number', maxDigits: 18 }} seen={seen} />);
    const input = screen.getByLabelText<HTMLInputElement>('Account number');
    expect(input).toHaveValue('1234 5678 9');
    // Caret just after the first space: backspace takes the 4 with it.
    await user.click(input);
    input.setSelectionRange(5, 5);
    await user.keyboard('{Backspace}');
    expect(input).toHaveValue('1235 6789');
    expect(input.selectionStart).toBe(3);
    // Typing in the middle moves the grouping, and the caret stays after the typed digit.
    await user.keyboard('0');
    expect(input).toHaveValue('1230 5678 9');
    expect(input.selectionStart).toBe(4);
    expect(groupInFours('12345')).toBe('1234 5');
  });

  it('shows a masked saved number until it is edited', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={AccountNumberInput} initial="**** **** 4321" props={{ id: 'acc', label: 'Account number', maxDigits: 18 }} seen={seen} />);
    const input = screen.getByLabelText('Account number');
    expect(input).toHaveValue('**** **** 4321');
    await user.type(input, '9');
    expect(input).toHaveValue('9');
    expect(seen).toEqual(['9']);
  });
});

describe('MoneyInput', () => {
  it('groups rupees the Indian way and keeps plain digits without leading zeros', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={MoneyInput} props={{ id: 'income', label: 'Monthly income', market: MARKETS.in }} seen={seen} />);
    const input = screen.getByLabelText('Monthly income');
    await user.type(input, '001200000.50');
    // The point is not a digit: 12,00,000 then 50 more digits typed after it.
    expect(seen.at(-1)).toBe('120000050');
    await user.clear(input);
    await user.type(input, '1200000');
    expect(input).toHaveValue('12,00,000');
    expect(seen.at(-1)).toBe('1200000');
    expect(screen.getByText('₹')).toBeInTheDocument();
  });

  it('groups rupiah with dots', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={MoneyInput} props={{ id: 'income', label: 'Penghasilan', market: MARKETS.id }} seen={seen} />);
    await user.type(screen.getByLabelText('Penghasilan'), '60000000');
    expect(screen.getByLabelText('Penghasilan')).toHaveValue('60.000.000');
    expect(currencySymbol(MARKETS.id)).toBe('Rp');
  });

  it('converts whole units to minor units with integer arithmetic', () => {
    expect(toMinorUnits('12000')).toBe(1200000);
    expect(toMinorUnits('9999999999')).toBe(999999999900);
    // 0.1 + 0.2 style drift cannot happen: 1234567.89 is never a float here.
    expect(toMinorUnits('1234567')).toBe(123456700);
    expect(toMinorUnits('')).toBeNull();
    expect(toMinorUnits('12.5')).toBeNull();
    expect(toMinorUnits('9'.repeat(20))).toBeNull();
    expect(fromMinorUnits(1200000)).toBe('12000');
    expect(fromMinorUnits(1250)).toBe('12');
  });
});

describe('SelectField', () => {
  const options = [
    { code: 'MH', label: 'Maharashtra' },
    { code: 'KA', label: 'Karnataka' },
  ];

  it('offers the options after a placeholder and hands out the chosen code', async () => {
    const onChange = vi.fn();
    const user = userEvent.setup();
    render(<SelectField id="region" label="State" options={options} value="" onChange={onChange} placeholder="Choose" />);
    const select = screen.getByLabelText('State');
    expect(select).toHaveDisplayValue('Choose');
    expect(within(select).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose', 'Maharashtra', 'Karnataka']);
    await user.selectOptions(select, 'Karnataka');
    expect(onChange).toHaveBeenCalledWith('KA');
  });

  it('shows a code it does not know as no choice, and its error', () => {
    render(<SelectField id="region" label="State" options={options} value="XX" onChange={() => undefined} placeholder="Choose" error="Choose one." />);
    expect(screen.getByLabelText('State')).toHaveDisplayValue('Choose');
    expect(screen.getByLabelText('State')).toHaveAccessibleDescription('Choose one.');
  });
});

describe('DateOfBirthField', () => {
  const min = new Date(1960, 0, 1);
  const max = new Date(2008, 10, 23);

  function Dob({ seen, initial = '' }: { seen: string[]; initial?: string }) {
    const [value, setValue] = useState(initial);
    return (
      <DateOfBirthField
        id="dob"
        label="Date of birth"
        value={value}
        onChange={(next) => {
          seen.push(next);
          setValue(next);
        }}
        min={min}
        max={max}
        start={new Date(1996, 5, 15)}
        locale="en-IN"
        placeholder="Choose a date"
        confirmText="Done"
        cancelText="Cancel"
      />
    );
  }

  // Taps in the sheet send only the click: its wheels and sheet follow drags with pointer capture, which
  // jsdom does not have. A wheel turns to a tapped item at once and tells the picker a moment later (a
  // zero-delay timer); a second tap before that would be undone, as no finger could.
  async function tapItem(sheet: HTMLElement, text: string) {
    fireEvent.click(within(sheet).getByText(text));
    await act(() => new Promise((settled) => setTimeout(settled, 10)));
    expect(within(sheet).getByText(text).closest('[data-selected]')).toHaveAttribute('data-selected', 'true');
  }
  const tap = (sheet: HTMLElement, text: string) => fireEvent.click(within(sheet).getByText(text));
  /** The wheels' sheet, once its lazily loaded chunk has arrived. */
  const openSheet = () => waitFor(() => within(document.body).getByText('Date of birth', { selector: '.adm-picker-header-title' }).closest('.adm-picker') as HTMLElement);

  it('opens the wheels at the start date and gives the chosen day as YYYY-MM-DD in the market’s words', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Dob seen={seen} />);
    const button = screen.getByRole('button', { name: 'Date of birth: Choose a date' });
    await user.click(button);
    const sheet = await openSheet();
    expect(within(sheet).getByText('Date of birth')).toBeInTheDocument();
    // Month names in the market's language, not numbers.
    expect(within(sheet).getByText('Jun')).toBeInTheDocument();
    await tapItem(sheet, '1990');
    await tapItem(sheet, 'Mar');
    tap(sheet, 'Done');
    expect(seen).toEqual(['1990-03-15']);
    expect(await screen.findByRole('button', { name: 'Date of birth: 15 March 1990' })).toHaveTextContent('15 March 1990');
  });

  it('changes nothing when cancelled', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Dob seen={seen} initial="1985-12-01" />);
    await user.click(screen.getByRole('button', { name: 'Date of birth: 1 December 1985' }));
    const sheet = await openSheet();
    await tapItem(sheet, '1990');
    tap(sheet, 'Cancel');
    expect(seen).toEqual([]);
    expect(screen.getByLabelText('Date of birth')).toHaveTextContent('1 December 1985');
  });

  it('reads and writes calendar dates without time zones', () => {
    expect(toIsoDate(new Date(1990, 2, 5))).toBe('1990-03-05');
    expect(parseIsoDate('1990-02-30')).toBeNull();
    expect(parseIsoDate('1990-2-3')).toBeNull();
    expect(toIsoDate(parseIsoDate('2000-02-29')!)).toBe('2000-02-29');
  });
});

describe('TextAreaField', () => {
  it('is a labelled text area that keeps to its length, with its error and hint', async () => {
    const seen: string[] = [];
    const user = userEvent.setup();
    render(<Harness Control={TextAreaField} props={{ id: 'address', label: 'Address', maxLength: 12, hint: 'House, street and area', error: 'At least 5 characters.' }} seen={seen} />);
    const area = screen.getByLabelText('Address');
    expect(area.tagName).toBe('TEXTAREA');
    await user.type(area, 'Flat 4, MG Road');
    expect(area).toHaveValue('Flat 4, MG R');
    expect(area).toHaveAccessibleDescription('At least 5 characters. House, street and area');
  });
});
