// `GET /privacy` as the server answers it, in each language.
export const PRIVACY_EN = {
  title: 'Privacy policy',
  updated: '2026-11-01',
  sections: [
    { heading: 'What we collect', paragraphs: ['Your mobile number, to log you in.', 'What you type into an application.'] },
    { heading: 'What we never collect', paragraphs: ['We never read your contact list, SMS messages, call log, list of apps, photos or other media.'] },
  ],
};

export const PRIVACY_ID = {
  title: 'Kebijakan privasi',
  updated: '2026-11-01',
  sections: [
    {
      heading: 'Yang tidak pernah kami kumpulkan',
      paragraphs: ['Kami tidak pernah membaca daftar kontak, SMS, riwayat panggilan, daftar aplikasi, foto, atau media lain di ponsel Anda.'],
    },
  ],
};
