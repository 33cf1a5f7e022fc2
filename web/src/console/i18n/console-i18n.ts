import { createI18n } from '@/shared/i18n/create-i18n';
import { CONSOLE_LANGUAGE } from '../format';
import en from './en.json';

/** The console is in English only (desktop, operators); its texts still go through i18n like every area's. */
export function createConsoleI18n() {
  return createI18n(CONSOLE_LANGUAGE, { name: 'console', en, id: en });
}
