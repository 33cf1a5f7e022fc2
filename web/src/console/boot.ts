// Everything the console is made of for one page load: main.tsx and the tests both start it through here.
import { createHttpClient } from '@/shared/api/http';
import type { ConsoleAppProps } from './app';
import { createQueryClient } from './api/query-client';
import { CSRF_HEADER, createCsrfStore } from './csrf';
import { CONSOLE_LOCALE } from './format';
import { createConsoleI18n } from './i18n/console-i18n';

export function bootConsole(options: { storage: Storage | null; retryReads?: boolean }): ConsoleAppProps {
  const csrf = createCsrfStore(options.storage);
  const api = createHttpClient({
    language: CONSOLE_LOCALE,
    // The console has no shell parameters: the page URL's query is its own (filters), not the native app's.
    pageSearch: () => '',
    unsafeHeaders: (): Record<string, string> => {
      const token = csrf.get();
      return token ? { [CSRF_HEADER]: token } : {};
    },
  });
  return { i18n: createConsoleI18n(), api, queryClient: createQueryClient({ retryReads: options.retryReads }), csrf };
}
