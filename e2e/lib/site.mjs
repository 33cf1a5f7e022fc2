// What the journeys know about the marketing site: the two markets' texts and where the banner lives.
// Texts come from the issue (India in English and rupees, Indonesia in Indonesian and rupiah) and the web app's
// catalogs (web/src/site/i18n/*.json); when the site's wording changes, this is the one file to change.

export const MARKETS = {
  india: {
    name: 'India',
    code: 'IN',
    path: '/?lang=1',
    htmlLang: /^en/,
    // ₹2,000 to ₹80,000 (Intl en-IN); compared with all white space removed.
    offer: ['₹2,000', '₹80,000'],
    tabs: { home: 'Home', contact: 'Contact Us' },
    steps: 'Get a loan in 3 steps',
    promises: ['Quick application', 'Flexible repayment', 'Your data kept safe', 'Customer service'],
    form: { name: 'Name', telephone: 'Telephone', message: 'Message', send: 'Send Message' },
    toast: { incomplete: 'Please fill in your name, phone and message.', sent: 'Sent — thank you!' },
  },
  indonesia: {
    name: 'Indonesia',
    code: 'ID',
    path: '/',
    htmlLang: /^id/,
    offer: ['Rp1.000.000', 'Rp15.000.000'],
    tabs: { home: 'Beranda', contact: 'Hubungi Kami' },
    steps: 'Pinjam dalam 3 langkah',
    promises: ['Pengajuan cepat', 'Pembayaran fleksibel', 'Data Anda aman', 'Layanan pelanggan'],
    form: { name: 'Nama', telephone: 'Telepon', message: 'Pesan', send: 'Kirim Pesan' },
    toast: { incomplete: 'Mohon isi nama, nomor telepon, dan pesan Anda.', sent: 'Terkirim — terima kasih!' },
  },
};

/** The banner and its slides, marked up as an ARIA carousel (web/src/shared/ui/image-carousel.tsx). */
export const BANNER = {
  root: '[aria-roledescription="carousel"]',
  slide: '[aria-roledescription="slide"]',
};

/** Text with every kind of white space (including the no-break spaces Intl puts after "Rp") removed. */
export function squash(text) {
  return text.replace(/[\s\u00a0\u202f]+/g, '');
}

/** A market's public site settings as the server serves them (that market's pages must show these values). */
export async function siteSettings(baseUrl, market) {
  const res = await fetch(new URL(`/api/v1/site/settings?market=${market.code}`, baseUrl));
  if (res.status !== 200) throw new Error(`GET /api/v1/site/settings answered ${res.status}`);
  const body = await res.json();
  if (body.code !== 0) throw new Error(`GET /api/v1/site/settings: ${JSON.stringify(body)}`);
  return body.data;
}
