import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ME_IN, deferred, fakeApi, ok, refusal, renderBorrower, type Handler } from '@/test/render-borrower';
import type { CertStep, StepData } from '../../api/certification';
import { CITIES_ID, CITIES_IN, ENUMS_ID, ENUMS_IN, LOG, certificationUpTo } from './fixtures.test-data';

const CERT = '/api/v1/borrower/certification';
const ORDER: CertStep[] = ['base', 'personal', 'job', 'extended', 'bank'];

/**
 * The certification API for one market: each step answers what `saved` holds for it (nothing by default), and
 * a save answers with the step after it as `next` unless `answers` says otherwise.
 */
function certApi(
  market: 'IN' | 'ID',
  options: { saved?: Partial<StepData>; answers?: Partial<Record<CertStep, Handler>>; handlers?: Record<string, Handler> } = {},
) {
  const handlers: Record<string, Handler> = {
    'GET /api/v1/borrower/enums': () => ok(market === 'IN' ? ENUMS_IN : ENUMS_ID),
    'GET /api/v1/borrower/cities': () => ok(market === 'IN' ? CITIES_IN : CITIES_ID),
    [`GET ${CERT}`]: () => ok(certificationUpTo('personal')),
    [`GET ${CERT}/log`]: () => ok(LOG.slice(0, 1)),
  };
  ORDER.forEach((step, index) => {
    const data = options.saved?.[step] ?? null;
    handlers[`GET ${CERT}/${step}`] = () => ok({ step, certStatus: data ? 'done' : 'todo', data });
    handlers[`POST ${CERT}/${step}`] =
      options.answers?.[step] ?? ((call) => ok({ step, certStatus: 'done', data: call.body, next: ORDER[index + 1] ?? null }));
  });
  const api = fakeApi({ ...handlers, ...options.handlers });
  api.signIn();
  return { ...api, saves: (step: CertStep) => api.callsTo('POST', `${CERT}/${step}`).map((call) => call.body) };
}

async function open(url: string, firstLabel: string) {
  const user = userEvent.setup();
  renderBorrower(url);
  await screen.findByLabelText(firstLabel);
  return user;
}

const field = (label: string) => screen.getByLabelText(label);
/** The error under a field, read the way a screen reader reads it with the field. */
const errorOf = (label: string) => field(label).getAttribute('aria-describedby')?.split(' ').map((id) => document.getElementById(id)?.textContent).join(' ') ?? '';
const save = (user: ReturnType<typeof userEvent.setup>, name = 'Save and continue') => user.click(screen.getByRole('button', { name }));

/** Picks a date on the date of birth's wheels (only clicks: jsdom has no pointer capture for their drags). */
async function pickBirthDate(user: ReturnType<typeof userEvent.setup>, label: string, parts: string[], confirm: string) {
  await user.click(screen.getByRole('button', { name: new RegExp(`^${label}:`) }));
  // The wheels are a chunk of their own, there once it has arrived.
  const sheet = await waitFor(() => within(document.body).getByText(label, { selector: '.adm-picker-header-title' }).closest('.adm-picker') as HTMLElement);
  for (const part of parts) {
    fireEvent.click(within(sheet).getByText(part));
    // The wheel tells the picker on a zero-delay timer; the next tap waits for it, as any finger would.
    await act(() => new Promise((settled) => setTimeout(settled, 10)));
  }
  fireEvent.click(within(sheet).getByText(confirm));
}

describe('basic information', () => {
  it('checks the fields as the server does, before sending anything, and focuses the first at fault', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    expect(screen.getByRole('heading', { level: 1, name: 'Basic information' })).toBeInTheDocument();
    expect(screen.getByText('Step 1 of 5')).toBeInTheDocument();

    await user.type(field('Full name, as on your PAN card'), 'R4vi');
    await user.type(field('PAN'), 'abcde-1234f');
    expect(field('PAN')).toHaveValue('ABCDE1234F');
    await save(user);

    expect(errorOf('Full name, as on your PAN card')).toBe('Write the name as on your ID, without digits.');
    expect(field('Full name, as on your PAN card')).toHaveAttribute('aria-invalid', 'true');
    expect(field('Full name, as on your PAN card')).toHaveFocus();
    expect(errorOf('Date of birth')).toBe('Fill this in.');
    expect(errorOf('Gender')).toBe('Choose one of the options.');
    expect(errorOf('PAN')).toBe("This is not a person's PAN: its 4th letter is P for a person. 10 characters, for example ABCPE1234F");
    expect(api.saves('base')).toHaveLength(0);

    // An edited field loses its error at once.
    await user.clear(field('PAN'));
    await user.type(field('PAN'), 'ABC1');
    expect(field('PAN')).not.toHaveAttribute('aria-invalid');
    await save(user);
    expect(errorOf('PAN')).toContain('Enter your PAN: 5 letters, 4 digits and a letter, for example ABCPE1234F.');
  });

  it('takes a name in letters of any script, never one of invisible characters, emoji or another script’s digits', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    const name = field('Full name, as on your PAN card');
    for (const [typed, error] of [
      ['\u200B\u200B', 'Remove the special characters.'],
      ['Asha\u202EamreV', 'Remove the special characters.'],
      ['Asha 😀 Verma', 'Write the name as on your ID, without digits.'],
      ['Asha ४ Verma', 'Write the name as on your ID, without digits.'],
    ] as const) {
      fireEvent.change(name, { target: { value: typed } });
      await save(user);
      expect(errorOf('Full name, as on your PAN card')).toBe(error);
    }
    fireEvent.change(name, { target: { value: 'आशा वर्मा' } });
    await save(user);
    expect(name).not.toHaveAttribute('aria-invalid');
    expect(api.saves('base')).toHaveLength(0);
  });

  it('saves the step with the date from the picker and goes on to the next step', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    await user.type(field('Full name, as on your PAN card'), '  Ravi   Kumar ');
    await pickBirthDate(user, 'Date of birth', ['1990', 'Mar', '15'], 'Done');
    expect(await screen.findByRole('button', { name: 'Date of birth: 15 March 1990' })).toBeInTheDocument();
    await user.selectOptions(field('Gender'), 'Male');
    await user.type(field('PAN'), 'abcpe1234f');
    await save(user);

    expect(await screen.findByRole('heading', { level: 1, name: 'Personal information' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/certification/personal');
    expect(screen.getByText('Step 2 of 5')).toBeInTheDocument();
    expect(api.saves('base')).toEqual([{ fullName: 'Ravi Kumar', dateOfBirth: '1990-03-15', gender: 'male', idNumber: 'ABCPE1234F' }]);
  });

  it('opens a step saved a moment ago with what was saved, never the copy read before the save', async () => {
    const before = { fullName: 'Asha Vrma', dateOfBirth: '1990-03-15', gender: 'female', idNumber: 'ABCPE1234F' };
    const reread = deferred();
    let reads = 0;
    certApi('IN', {
      handlers: {
        [`GET ${CERT}/base`]: () => {
          reads += 1;
          return reads === 1 ? ok({ step: 'base', certStatus: 'done', data: before }) : reread.promise;
        },
      },
    });
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    expect(field('Full name, as on your PAN card')).toHaveValue('Asha Vrma');
    await user.clear(field('Full name, as on your PAN card'));
    await user.type(field('Full name, as on your PAN card'), 'Asha Verma');
    await save(user);
    await screen.findByRole('heading', { level: 1, name: 'Personal information' });
    // Back to the step while its saved copy is still being read again (a slow network).
    await act(async () => {
      window.history.pushState({}, '', '/app/certification/base?lang=1');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    await screen.findByRole('heading', { level: 1, name: 'Basic information' });
    expect(screen.queryByDisplayValue('Asha Vrma')).toBeNull();
    reread.resolve(ok({ step: 'base', certStatus: 'done', data: { ...before, fullName: 'Asha Verma' } }));
    expect(await screen.findByDisplayValue('Asha Verma')).toBeInTheDocument();
  });

  it('shows a saved PAN masked and sends the mask back to keep it; typing starts a new number', async () => {
    const api = certApi('IN', { saved: { base: { fullName: 'Ravi Kumar', dateOfBirth: '1990-03-15', gender: 'male', idNumber: '******234F' } } });
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    expect(field('Full name, as on your PAN card')).toHaveValue('Ravi Kumar');
    expect(field('Gender')).toHaveDisplayValue('Male');
    expect(screen.getByRole('button', { name: 'Date of birth: 15 March 1990' })).toBeInTheDocument();
    expect(field('PAN')).toHaveValue('******234F');
    expect(field('PAN')).toHaveAccessibleDescription('Your saved number is hidden for your safety. Leave it to keep it, or type a new one.');
    await save(user);
    await screen.findByRole('heading', { level: 1, name: 'Personal information' });
    expect(api.saves('base')).toEqual([{ fullName: 'Ravi Kumar', dateOfBirth: '1990-03-15', gender: 'male', idNumber: '******234F' }]);
  });

  it('replaces a masked PAN with what is typed after it', async () => {
    certApi('IN', { saved: { base: { fullName: 'Ravi Kumar', dateOfBirth: '1990-03-15', gender: 'male', idNumber: '******234F' } } });
    const user = await open('/app/certification/base?lang=1', 'PAN');
    await user.type(field('PAN'), 'x');
    expect(field('PAN')).toHaveValue('X');
    expect(field('PAN')).toHaveAccessibleDescription('10 characters, for example ABCPE1234F');
  });

  it('asks for a NIK of 16 digits in Indonesia', async () => {
    const api = certApi('ID');
    const user = await open('/app/certification/base', 'Nama lengkap sesuai KTP');
    await user.type(field('NIK (16 angka di KTP)'), '0171-2345 6789 0001 99');
    expect(field('NIK (16 angka di KTP)')).toHaveValue('0171234567890001');
    await save(user, 'Simpan dan lanjutkan');
    expect(errorOf('NIK (16 angka di KTP)')).toBe('Masukkan NIK: 16 angka pada KTP Anda.');
    expect(errorOf('Nama lengkap sesuai KTP')).toBe('Wajib diisi.');
    expect(api.saves('base')).toHaveLength(0);
  });
});

describe('personal information', () => {
  it('lists the cities of the chosen region, checks the PIN code and shows the server’s field errors at their fields', async () => {
    const api = certApi('IN', {
      answers: {
        personal: () =>
          refusal(422, 'validation_failed', 'Some fields need fixing.', {
            fields: { postalCode: 'Enter the 6-digit postal code.', market: 'Choose India or Indonesia.' },
          }),
      },
    });
    const user = await open('/app/certification/personal?lang=1', 'State or union territory');
    expect(field('City')).toBeDisabled();
    await user.selectOptions(field('State or union territory'), 'Maharashtra');
    expect(within(field('City')).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose', 'Mumbai', 'Pune']);
    await user.selectOptions(field('City'), 'Pune');
    // Another region: its cities, and no city chosen yet.
    await user.selectOptions(field('State or union territory'), 'Karnataka');
    expect(within(field('City')).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose', 'Bengaluru', 'Mysuru']);
    expect(field('City')).toHaveDisplayValue('Choose');

    await user.selectOptions(field('Education'), 'Graduate');
    await user.selectOptions(field('Marital status'), 'Single');
    await user.selectOptions(field('Your home is'), 'Rented');
    await user.type(field('Address'), 'Flat');
    await user.type(field('PIN code'), '056a0012');
    expect(field('PIN code')).toHaveValue('056001');
    await save(user);
    expect(errorOf('City')).toBe('Choose one of the options.');
    expect(errorOf('PIN code')).toBe('A PIN code does not start with 0.');
    expect(errorOf('Address')).toBe('At least 5 characters. House, street and area');
    expect(field('City')).toHaveFocus();

    await user.selectOptions(field('City'), 'Bengaluru');
    await user.type(field('Address'), ' 4, MG Road');
    await user.clear(field('PIN code'));
    await user.type(field('PIN code'), '560001');
    await save(user);

    expect(await screen.findByText('Enter the 6-digit postal code.')).toBeInTheDocument();
    expect(field('PIN code')).toHaveAttribute('aria-invalid', 'true');
    expect(errorOf('PIN code')).toBe('Enter the 6-digit postal code.');
    expect(field('PIN code')).toHaveFocus();
    expect(within(screen.getByRole('alert')).getByText('Choose India or Indonesia.')).toBeInTheDocument();
    expect(screen.getByTestId('toast')).toHaveTextContent('Some fields need fixing.');
    expect(api.saves('personal')).toEqual([
      {
        education: 'graduate',
        maritalStatus: 'single',
        residenceType: 'rented',
        regionCode: 'KA',
        cityCode: 'KA-BLR',
        address: 'Flat 4, MG Road',
        postalCode: '560001',
      },
    ]);
    expect(window.location.pathname).toBe('/app/certification/personal');
  });

  it('pre-fills the saved region and city', async () => {
    certApi('IN', {
      saved: {
        personal: { education: 'graduate', maritalStatus: 'married', residenceType: 'owned', regionCode: 'MH', cityCode: 'MH-PUN', address: 'Flat 4, FC Road', postalCode: '411004' },
      },
    });
    await open('/app/certification/personal?lang=1', 'City');
    expect(field('State or union territory')).toHaveDisplayValue('Maharashtra');
    expect(field('City')).toHaveDisplayValue('Pune');
    expect(field('PIN code')).toHaveValue('411004');
  });
});

describe('job and income', () => {
  it('asks India for monthly income in rupees and sends it in paise', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/job?lang=1', 'Monthly income, in rupees');
    expect(field('Monthly income, in rupees')).toHaveAccessibleDescription('Before tax. To borrow you need at least ₹12,000 a month.');
    await user.selectOptions(field('Type of work'), 'Salaried');
    await user.type(field('Employer or business name'), 'Acme Tools');
    await user.type(field('Monthly income, in rupees'), '125000');
    expect(field('Monthly income, in rupees')).toHaveValue('1,25,000');
    await user.type(field('Pay day (day of the month)'), '32');
    await save(user);
    expect(errorOf('Pay day (day of the month)')).toBe('Enter a day from 1 to 31.');
    expect(api.saves('job')).toHaveLength(0);

    await user.clear(field('Pay day (day of the month)'));
    await user.type(field('Pay day (day of the month)'), '07');
    await save(user);
    await screen.findByRole('heading', { level: 1, name: 'Emergency contacts' });
    expect(api.saves('job')).toEqual([{ employmentType: 'salaried', employerName: 'Acme Tools', income: 12500000, payDay: 7 }]);
  });

  it('asks Indonesia for income a month, as people quote it, and sends the yearly figure the rule counts', async () => {
    // Saved by the rule's measure, a year: Rp60,000,000, which is Rp5,000,000 a month.
    const api = certApi('ID', { saved: { job: { employmentType: 'salaried', employerName: 'PT Maju', income: 6000000000, payDay: 25 } } });
    const user = await open('/app/certification/job', 'Penghasilan per bulan, dalam rupiah');
    const income = field('Penghasilan per bulan, dalam rupiah');
    expect(income).toHaveValue('5.000.000');
    expect(income).toHaveAccessibleDescription(/minimal Rp\s5\.000\.000 per tahun \(Rp\s416\.666,67 per bulan\)\.$/);
    expect(screen.queryByText(/di bawah/)).toBeNull();
    await user.clear(income);
    await user.type(income, '0');
    await save(user, 'Simpan dan lanjutkan');
    expect(errorOf('Penghasilan per bulan, dalam rupiah')).toContain('Masukkan penghasilan Anda.');
    await user.clear(income);
    await user.type(income, '6041667');
    await save(user, 'Simpan dan lanjutkan');
    await screen.findByRole('heading', { level: 1, name: 'Kontak darurat' });
    // Rp6,041,667 a month is Rp72,500,004 a year, in sen, exactly.
    expect(api.saves('job')).toEqual([{ employmentType: 'salaried', employerName: 'PT Maju', income: 7250000400, payDay: 25 }]);
  });

  it('warns under the field when the income is below the minimum, and still saves it', async () => {
    const api = certApi('ID', { saved: { job: { employmentType: 'salaried', employerName: 'PT Maju', income: 6000000000, payDay: 25 } } });
    const user = await open('/app/certification/job', 'Penghasilan per bulan, dalam rupiah');
    const income = field('Penghasilan per bulan, dalam rupiah');
    await user.clear(income);
    await user.type(income, '416666');
    // Said as it is typed, in a live region.
    expect(screen.getByText(/^Ini di bawah Rp\s416\.666,67 per bulan yang disyaratkan pemberi pinjaman\./)).toHaveAttribute('role', 'status');
    await user.clear(income);
    await user.type(income, '416667');
    expect(screen.queryByText(/^Ini di bawah/)).toBeNull();
    await user.clear(income);
    await user.type(income, '300000');
    await save(user, 'Simpan dan lanjutkan');
    await screen.findByRole('heading', { level: 1, name: 'Kontak darurat' });
    expect(api.saves('job')).toEqual([{ employmentType: 'salaried', employerName: 'PT Maju', income: 360000000, payDay: 25 }]);
  });

  it('warns India below ₹12,000 a month', async () => {
    certApi('IN');
    const user = await open('/app/certification/job?lang=1', 'Monthly income, in rupees');
    await user.type(field('Monthly income, in rupees'), '11999');
    expect(screen.getByText('This is below the ₹12,000 a month the lender needs. You can save it, but you cannot apply for a loan with it.')).toBeInTheDocument();
    await user.type(field('Monthly income, in rupees'), '0');
    expect(screen.queryByText(/This is below/)).toBeNull();
  });
});

describe('emergency contacts', () => {
  const contact = (number: 1 | 2) => within(screen.getByRole('group', { name: `Contact ${number}` }));

  it('checks the phones by market, wants two different people and the consent, then sends E.164 numbers', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/extended?lang=1', 'I have told these people that I am giving their names and numbers.');
    expect(screen.getByText('Type two people who know you. We never call or message them about your loan or repayments, and we never read your contact list.')).toBeInTheDocument();
    await user.type(contact(1).getByLabelText('Name'), 'Sita Devi');
    await user.selectOptions(contact(1).getByLabelText('Relationship to you'), 'Parent');
    await user.type(contact(1).getByLabelText('Mobile number'), '+91 98765 43211');
    expect(contact(1).getByLabelText('Mobile number')).toHaveValue('98765 43211');
    await user.type(contact(2).getByLabelText('Name'), 'Arjun');
    await user.selectOptions(contact(2).getByLabelText('Relationship to you'), 'Friend');
    await user.type(contact(2).getByLabelText('Mobile number'), '5876543210');
    await save(user);

    const second = contact(2).getByLabelText('Mobile number');
    expect(second).toHaveAccessibleDescription('Enter a 10-digit mobile number that starts with 6, 7, 8 or 9.');
    const consent = screen.getByRole('checkbox', { name: 'I have told these people that I am giving their names and numbers.' });
    expect(consent).toHaveAccessibleDescription('Tick the box to confirm you have told these people.');
    expect(consent).toHaveAttribute('aria-invalid', 'true');

    await user.clear(second);
    await user.type(second, '09876543211');
    await user.click(consent);
    expect(consent).not.toHaveAttribute('aria-invalid');
    await save(user);
    expect(second).toHaveAccessibleDescription('Give two different people.');
    expect(api.saves('extended')).toHaveLength(0);

    await user.clear(second);
    await user.type(second, '7012345678');
    await save(user);
    await screen.findByRole('heading', { level: 1, name: 'Bank account' });
    expect(api.saves('extended')).toEqual([
      {
        contact1Name: 'Sita Devi',
        contact1Relation: 'parent',
        contact1Phone: '+919876543211',
        contact2Name: 'Arjun',
        contact2Relation: 'friend',
        contact2Phone: '+917012345678',
        consent: true,
      },
    ]);
  });

  it('shows saved numbers as they are written at home, in Indonesia', async () => {
    certApi('ID', {
      saved: {
        extended: {
          contact1Name: 'Budi',
          contact1Relation: 'parent',
          contact1Phone: '+6281234567890',
          contact2Name: 'Sari',
          contact2Relation: 'spouse',
          contact2Phone: '+6281298765432',
          consent: true,
        },
      },
    });
    await open('/app/certification/extended', 'Saya sudah memberi tahu orang-orang ini bahwa saya memberikan nama dan nomor mereka.');
    expect(within(screen.getByRole('group', { name: 'Kontak 1' })).getByLabelText('Nomor HP')).toHaveValue('0812-3456-7890');
    expect(within(screen.getByRole('group', { name: 'Kontak 2' })).getByLabelText('Hubungan dengan Anda')).toHaveDisplayValue('Suami/istri');
    expect(screen.getByRole('checkbox')).toBeChecked();
  });
});

describe('bank account', () => {
  it('wants the account number twice and the IFSC of the chosen bank, then goes back to the progress screen', async () => {
    const api = certApi('IN');
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    await user.selectOptions(field('Bank'), 'HDFC Bank');
    await user.type(field('Account number'), '1234 5678 9012');
    expect(field('Account number')).toHaveValue('1234 5678 9012');
    await user.type(field('Account number again'), '123456789013');
    expect(field('Account number again')).toHaveValue('1234 5678 9013');
    await user.type(field('IFSC'), 'sbin 0001234');
    expect(field('IFSC')).toHaveValue('SBIN0001234');
    await save(user);
    expect(errorOf('Account number again')).toBe('The two numbers are not the same. Type it again to be sure the money goes to the right account.');
    expect(errorOf('IFSC')).toContain('This IFSC is of another bank: it starts with HDFC for HDFC Bank.');
    expect(api.saves('bank')).toHaveLength(0);

    await user.clear(field('Account number again'));
    await user.type(field('Account number again'), '123456789012');
    await user.clear(field('IFSC'));
    await user.type(field('IFSC'), 'HDFC0001234');
    await save(user);

    // The last step: the server names no next step, and the progress screen shows them all.
    expect(await screen.findByRole('heading', { level: 1, name: 'Your details' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/certification');
    expect(api.saves('bank')).toEqual([{ bankCode: 'HDFC', accountNumber: '123456789012', accountNumberConfirm: '123456789012', ifsc: 'HDFC0001234' }]);
  });

  it('refuses too few digits for the market', async () => {
    certApi('IN');
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    await user.type(field('Account number'), '12345678');
    await save(user);
    expect(errorOf('Account number')).toBe('Enter 9 to 18 digits.');
  });

  it('keeps a saved account number: shown masked, no second copy asked for, the mask sent back', async () => {
    const api = certApi('IN', { saved: { bank: { bankCode: 'HDFC', accountNumber: '**** **** 4321', ifsc: 'HDFC0000001' } } });
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    expect(field('Account number')).toHaveValue('**** **** 4321');
    expect(field('Account number')).toHaveAccessibleDescription('Your saved number is hidden for your safety. Leave it to keep it, or type a new one.');
    expect(screen.queryByLabelText('Account number again')).toBeNull();
    expect(field('IFSC')).toHaveValue('HDFC0000001');
    await save(user);
    await waitFor(() => expect(api.saves('bank')).toEqual([{ bankCode: 'HDFC', accountNumber: '**** **** 4321', ifsc: 'HDFC0000001' }]));
  });

  it('asks for the number twice again once a new one is typed over the saved one', async () => {
    certApi('IN', { saved: { bank: { bankCode: 'HDFC', accountNumber: '**** **** 4321', ifsc: 'HDFC0000001' } } });
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    await user.type(field('Account number'), '5');
    expect(field('Account number')).toHaveValue('5');
    expect(field('Account number again')).toHaveValue('');
  });

  it('changing an account on file asks for the code sent to the phone, and shows the server’s refusals at their fields', async () => {
    let answer: Handler = () =>
      refusal(422, 'validation_failed', 'Check the fields.', { fields: { verificationCode: 'This code is not correct.' } });
    const api = certApi('IN', {
      saved: { bank: { bankCode: 'HDFC', accountNumber: '**** **** 4321', ifsc: 'HDFC0000001' } },
      answers: { bank: (call) => answer(call) },
      handlers: { 'POST /api/v1/borrower/verification-code': () => ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }) },
    });
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    // Keeping the account asks for nothing.
    expect(screen.queryByLabelText('Code from the SMS')).toBeNull();
    await user.clear(field('Account number'));
    await user.type(field('Account number'), '999988887777');
    await user.type(field('Account number again'), '999988887777');
    expect(screen.getByRole('group', { name: 'Confirm it is you' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send me a code' }));
    expect(await screen.findByText('Code sent to +91 ******3210. It is valid for 5 minutes.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/verification-code')[0]!.body).toEqual({ purpose: 'bank_account' });
    expect(screen.getByRole('button', { name: 'Send a new code' })).toBeInTheDocument();
    await user.type(field('Code from the SMS'), '123455');
    await save(user);
    await waitFor(() => expect(errorOf('Code from the SMS')).toBe('This code is not correct.'));
    expect(api.saves('bank')[0]).toMatchObject({ accountNumber: '999988887777', verificationCode: '123455' });

    // While a loan is open the server refuses the change under the account number.
    answer = () =>
      refusal(422, 'validation_failed', 'Check the fields.', {
        fields: { accountNumber: 'Your bank account cannot change while you have a loan under review, approved or not yet repaid.' },
      });
    await user.clear(field('Code from the SMS'));
    await user.type(field('Code from the SMS'), '123456');
    await save(user);
    await waitFor(() => expect(errorOf('Account number')).toContain('cannot change while you have a loan'));
  });

  it('says why a code could not be sent (a minute between codes)', async () => {
    certApi('ID', {
      saved: { bank: { bankCode: 'BCA', accountNumber: '**** **** 7890' } },
      handlers: { 'POST /api/v1/borrower/verification-code': () => refusal(429, 'code_resend_too_soon', 'Tunggu sebentar sebelum meminta kode baru.') },
    });
    const user = await open('/app/certification/bank', 'Nomor rekening');
    await user.clear(field('Nomor rekening'));
    await user.type(field('Nomor rekening'), '1234567890');
    await user.click(screen.getByRole('button', { name: 'Kirim kode' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/Tunggu|tunggu|menit|detik/);
  });

  it('has no IFSC in Indonesia', async () => {
    const api = certApi('ID');
    const user = await open('/app/certification/bank', 'Nomor rekening');
    expect(screen.queryByLabelText('IFSC')).toBeNull();
    await user.selectOptions(field('Bank'), 'Bank Central Asia');
    await user.type(field('Nomor rekening'), '1234567890');
    await user.type(field('Ulangi nomor rekening'), '1234567890');
    await save(user, 'Simpan dan lanjutkan');
    await screen.findByRole('heading', { level: 1, name: 'Data Anda' });
    expect(api.saves('bank')).toEqual([{ bankCode: 'BCA', accountNumber: '1234567890', accountNumberConfirm: '1234567890' }]);
  });
});

describe('step screen', () => {
  it('sends the borrower to the progress screen with the server’s message when an earlier step is missing', async () => {
    certApi('IN', { answers: { job: () => refusal(409, 'certification_out_of_order', 'Complete the earlier steps first.') } });
    const user = await open('/app/certification/job?lang=1', 'Monthly income, in rupees');
    await user.selectOptions(field('Type of work'), 'Salaried');
    await user.type(field('Employer or business name'), 'Acme Tools');
    await user.type(field('Monthly income, in rupees'), '25000');
    await user.type(field('Pay day (day of the month)'), '1');
    await save(user);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your details' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/certification');
    expect(await screen.findByTestId('toast')).toHaveTextContent('Complete the earlier steps first.');
    expect(screen.getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/app/certification/personal');
  });

  it('shows an error with a retry when the step cannot be loaded', async () => {
    let fail = true;
    const api = certApi('IN', {
      handlers: { [`GET ${CERT}/base`]: () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok({ step: 'base', certStatus: 'todo', data: null })) },
    });
    const user = userEvent.setup();
    renderBorrower('/app/certification/base?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('This step could not be loaded.Service unavailable.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByLabelText('Full name, as on your PAN card')).toHaveValue('');
    expect(api.callsTo('GET', `${CERT}/base`)).toHaveLength(2);
  });

  it('says so for a step that does not exist', async () => {
    certApi('IN');
    renderBorrower('/app/certification/salary?lang=1');
    expect(await screen.findByText('There is no such step.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See your details' })).toHaveAttribute('href', '/app/certification');
  });
});

describe('a session that ends before Save', () => {
  const EXPIRED = 'You were signed out because your session expired. Please log in again.';
  const SAVED_BASE = { fullName: 'Ravi Kumar', dateOfBirth: '1990-03-15', gender: 'male', idNumber: '******234F' };

  /** The certification API with a session the test ends: every call answers 401 until the borrower logs in again. */
  function sessionApi(options: { saved?: Partial<StepData> } = {}) {
    let session = true;
    const gone = () => refusal(401, 'unauthorized', EXPIRED, { headers: { 'X-Signed-Out': 'expired' } });
    const guarded = (handler: Handler): Handler => (call) => (session ? handler(call) : gone());
    const api = certApi('IN', {
      saved: options.saved,
      handlers: {
        'GET /api/v1/borrower/me': () => (session ? ok(ME_IN) : gone()),
        'POST /api/v1/borrower/login': () => {
          session = true;
          return ok({ sessionId: 's-2', borrower: { id: ME_IN.id, phoneMasked: ME_IN.phoneMasked, market: 'IN', isNew: false } });
        },
        ...Object.fromEntries(
          ORDER.map((step, index) => [
            `POST ${CERT}/${step}`,
            guarded((call) => ok({ step, certStatus: 'done', data: call.body, next: ORDER[index + 1] ?? null })),
          ]),
        ),
      },
    });
    return { ...api, endSession: () => (session = false) };
  }

  async function logInAgain(user: ReturnType<typeof userEvent.setup>) {
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    await user.type(await screen.findByLabelText('Mobile number'), '9876543210');
    await user.type(screen.getByLabelText('Verification code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
  }

  it('opens the step again with what was typed after logging in, says nothing but "log in", and forgets it once saved', async () => {
    const api = sessionApi({ saved: { base: SAVED_BASE } });
    const user = await open('/app/certification/base?lang=1', 'Full name, as on your PAN card');
    await user.clear(field('Full name, as on your PAN card'));
    await user.type(field('Full name, as on your PAN card'), 'Ravi Kumar Sharma');
    await user.selectOptions(field('Gender'), 'Female');
    api.endSession();
    await save(user);

    // The login screen says why, and nothing else does: no error toast on top of it.
    expect(await screen.findByText(EXPIRED)).toBeInTheDocument();
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
    await logInAgain(user);
    expect(await screen.findByRole('heading', { level: 1, name: 'Basic information' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/certification/base');
    expect(await screen.findByLabelText('Full name, as on your PAN card')).toHaveValue('Ravi Kumar Sharma');
    expect(field('Gender')).toHaveDisplayValue('Female');
    expect(field('PAN')).toHaveValue('******234F');
    expect(screen.getByRole('button', { name: 'Date of birth: 15 March 1990' })).toBeInTheDocument();
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();

    await save(user);
    await screen.findByRole('heading', { level: 1, name: 'Personal information' });
    expect(api.saves('base')).toEqual([
      { ...SAVED_BASE, fullName: 'Ravi Kumar Sharma', gender: 'female' },
      { ...SAVED_BASE, fullName: 'Ravi Kumar Sharma', gender: 'female' },
    ]);
    expect(window.sessionStorage.getItem('kilat.cert-draft:base')).toBeNull();
    // Back on the step, it opens with what is saved (this fake keeps the first copy), not the draft.
    await act(async () => {
      window.history.pushState({}, '', '/app/certification/base?lang=1');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    expect(await screen.findByLabelText('Full name, as on your PAN card')).toHaveValue('Ravi Kumar');
  });

  it('never keeps a bank-account or ID number typed in clear: the rest comes back and the number is asked again', async () => {
    const api = sessionApi();
    const user = await open('/app/certification/bank?lang=1', 'Account number');
    await user.selectOptions(field('Bank'), 'HDFC Bank');
    await user.type(field('Account number'), '123456789012');
    await user.type(field('Account number again'), '123456789012');
    await user.type(field('IFSC'), 'HDFC0001234');
    const kept = window.sessionStorage.getItem('kilat.cert-draft:bank') ?? '';
    expect(kept).toContain('HDFC0001234');
    expect(kept).not.toContain('123456789012');
    api.endSession();
    await save(user);

    await logInAgain(user);
    expect(await screen.findByLabelText('IFSC')).toHaveValue('HDFC0001234');
    expect(field('Bank')).toHaveDisplayValue('HDFC Bank');
    expect(field('Account number')).toHaveValue('');
    expect(field('Account number again')).toHaveValue('');
    expect(screen.queryByTestId('toast')).not.toBeInTheDocument();
    expect(JSON.stringify({ ...window.sessionStorage })).not.toContain('123456789012');
  });

  it('lets a step saved since, another borrower, or a log-out win over a draft', async () => {
    const draft = { borrower: ME_IN.id, base: { ...SAVED_BASE }, values: { ...SAVED_BASE, fullName: 'Typed Before' } };
    // Saved again since the draft was typed (another device): the saved step is newer.
    window.sessionStorage.setItem('kilat.cert-draft:base', JSON.stringify(draft));
    certApi('IN', { saved: { base: { ...SAVED_BASE, fullName: 'Saved Elsewhere' } } });
    const first = renderBorrower('/app/certification/base?lang=1');
    expect(await screen.findByLabelText('Full name, as on your PAN card')).toHaveValue('Saved Elsewhere');
    expect(window.sessionStorage.getItem('kilat.cert-draft:base')).toBeNull();
    first.unmount();

    // Another borrower's draft in this tab.
    window.sessionStorage.setItem('kilat.cert-draft:base', JSON.stringify({ ...draft, borrower: 'b-other' }));
    certApi('IN', { saved: { base: SAVED_BASE } });
    const second = renderBorrower('/app/certification/base?lang=1');
    expect(await screen.findByLabelText('Full name, as on your PAN card')).toHaveValue('Ravi Kumar');
    second.unmount();

    // Logging out forgets every step's draft.
    window.sessionStorage.setItem('kilat.cert-draft:base', JSON.stringify(draft));
    window.sessionStorage.setItem('kilat.cert-draft:job', JSON.stringify({ ...draft, base: {}, values: { employerName: 'Acme' } }));
    certApi('IN');
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(window.sessionStorage.getItem('kilat.cert-draft:base')).toBeNull();
    expect(window.sessionStorage.getItem('kilat.cert-draft:job')).toBeNull();
  });
});
