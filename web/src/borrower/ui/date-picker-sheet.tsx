// antd-mobile's DatePicker on its own: date-of-birth-field.tsx loads this module lazily, so its wheels and
// their animation and gesture libraries become a chunk of their own, fetched only where a date is asked for.
// (A dynamic import of the kit's date-picker folder itself made the bundler move shared modules, React among
// them, into that chunk and onto every page's first load.)
import { DatePicker } from 'antd-mobile';

export { DatePicker as default };
