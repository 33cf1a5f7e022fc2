import { createContext, useContext, type ReactNode } from 'react';
import { DEV_SETTINGS, type SiteSettings } from './settings';

const SettingsContext = createContext<SiteSettings>(DEV_SETTINGS);

export function SettingsProvider({ settings, children }: { settings: SiteSettings; children: ReactNode }) {
  return <SettingsContext.Provider value={settings}>{children}</SettingsContext.Provider>;
}

export function useSettings(): SiteSettings {
  return useContext(SettingsContext);
}
