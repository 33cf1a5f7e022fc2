// The texts of the parts of the app behind login, in English, merged: borrower-i18n.ts fetches this
// module as a chunk of its own.
import account from './account.en.json';
import cert from './cert.en.json';
import loans from './loans.en.json';
import money from './money.en.json';
import servicing from './servicing.en.json';
import support from './support.en.json';

export default { ...cert, ...loans, ...servicing, ...support, ...account, ...money };
