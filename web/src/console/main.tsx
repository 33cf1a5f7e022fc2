// The operators' console entry (console/index.html). Client-rendered: the server answers the same HTML for every
// path under /console. No service worker of its own: operators are online, and their pages must be current.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './app';
import { bootConsole } from './boot';
import { localStorageOrNull } from './csrf';
import './console.css';

const container = document.getElementById('root');
if (container) {
  const app = bootConsole({ storage: localStorageOrNull() });
  document.title = app.i18n.t('console:documentTitle');
  createRoot(container).render(
    <StrictMode>
      <ConsoleApp {...app} />
    </StrictMode>,
  );
}
