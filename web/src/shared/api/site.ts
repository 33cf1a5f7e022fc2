// The site's two endpoints.
import type { HttpClient } from './http';
import type { ContactMessageCreated, NewContactMessage, SiteSettings } from './types';

export const SITE_SETTINGS_PATH = '/api/v1/site/settings';
export const CONTACT_MESSAGES_PATH = '/api/v1/site/contact-messages';

/** The brand and `market`'s company (`IN` or `ID`). */
export function fetchSiteSettings(client: HttpClient, market: SiteSettings['market']): Promise<SiteSettings> {
  return client.get<SiteSettings>(`${SITE_SETTINGS_PATH}?market=${market}`);
}

export function sendContactMessage(client: HttpClient, message: NewContactMessage): Promise<ContactMessageCreated> {
  return client.postJson<ContactMessageCreated>(CONTACT_MESSAGES_PATH, message);
}
