// The texts of the parts of the app behind login, in Indonesian, merged: borrower-i18n.ts fetches this
// module as a chunk of its own.
import account from './account.id.json';
import cert from './cert.id.json';
import loans from './loans.id.json';
import money from './money.id.json';
import servicing from './servicing.id.json';
import support from './support.id.json';

export default { ...cert, ...loans, ...servicing, ...support, ...account, ...money };
