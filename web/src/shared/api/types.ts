// Site shapes, taken from the generated OpenAPI types by path rather than by schema name, so the
// server's own component names (utoipa's) can differ from the placeholder document's without
// breaking this file.
import type { paths } from './schema';

/** The JSON body of a request or response entry of `paths`. */
export type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** The `data` of a success envelope. */
export type DataOf<T> = T extends { data?: infer D } ? NonNullable<D> : never;

type SettingsGet = paths['/api/v1/site/settings']['get'];
type ContactPost = paths['/api/v1/site/contact-messages']['post'];

/** The public site settings (`GET /api/v1/site/settings`). */
export type SiteSettings = DataOf<JsonBody<SettingsGet['responses'][200]>>;

/** The body of `POST /api/v1/site/contact-messages`. */
export type NewContactMessage = JsonBody<NonNullable<ContactPost['requestBody']>>;

/** What the server answers to a stored contact message. */
export type ContactMessageCreated = DataOf<JsonBody<ContactPost['responses'][201]>>;
