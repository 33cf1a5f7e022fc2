import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useApiClient } from '@/shared/api/api-context';
import { useMarket } from '@/shared/market/market-context';
import { ApiError, CLIENT_ERROR } from '@/shared/api/http';
import { CONTACT_MESSAGES_PATH, sendContactMessage } from '@/shared/api/site';
import { useSettings } from '@/shared/settings/settings-context';
import { TOAST_DURATION_MS, useToast } from '@/shared/ui/toast';

/** Errors stay a little longer than the 1 s of SPEC.md's two messages: they are longer to read. */
export const ERROR_TOAST_MS = 3000;

type Field = 'name' | 'telephone' | 'message';
const FIELDS: readonly Field[] = ['name', 'telephone', 'message'];

/**
 * The contact form (SPEC.md §5, PRODUCT.md §2): the same checks and 1 s toasts as the original, and also each
 * missing field marked where it is (the toast is gone after a second); a complete message is really sent, and
 * the fields clear only once the server has stored it. It needs JavaScript: the contact panel stays hidden until
 * the script shows it, and the endpoint answers JSON, so the form's `method` and `action` are no working path
 * without script.
 *
 * A field hidden from people, `website` ("leave this empty"), catches programs that fill every field: it is sent
 * only when filled, and the server answers such a message like any other and keeps it nowhere. Its value is read
 * from the page when sending, so a program that sets it without typing is caught too.
 */
export function ContactSection() {
  const { t } = useTranslation();
  const api = useApiClient();
  const toast = useToast();
  const settings = useSettings();
  // Support reads the sender's phone with this market's country code (docs/API-CONSOLE.md, contact messages).
  const marketCode = useMarket().id === 'in' ? 'IN' : 'ID';
  const [name, setName] = useState('');
  const [telephone, setTelephone] = useState('');
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);
  const trap = useRef<HTMLInputElement>(null);
  /** Fields at fault, with their text: missing here, or refused by the server. */
  const [invalid, setInvalid] = useState<Partial<Record<Field, string>>>({});
  const setters: Record<Field, (value: string) => void> = { name: setName, telephone: setTelephone, message: setMessage };
  const values: Record<Field, string> = { name, telephone, message };
  const missingText = (field: Field) => t('contact.required', { field: t(`contact.${field}`).toLowerCase() });
  const change = (field: Field, value: string) => {
    setters[field](value);
    if (invalid[field] && value.trim()) setInvalid((current) => ({ ...current, [field]: undefined }));
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    const fields = { name: name.trim(), telephone: telephone.trim(), message: message.trim() };
    const missing = FIELDS.filter((field) => !fields[field]);
    if (missing.length > 0) {
      setInvalid(Object.fromEntries(missing.map((field) => [field, missingText(field)])));
      toast(t('contact.incomplete'), { kind: 'error', durationMs: TOAST_DURATION_MS });
      document.getElementById(`contact-${missing[0]}`)?.focus();
      return;
    }
    setInvalid({});
    setSending(true);
    try {
      const website = trap.current?.value ?? '';
      await sendContactMessage(api, { ...fields, market: marketCode, ...(website ? { website } : {}) });
      toast(t('contact.success'), { kind: 'success', durationMs: TOAST_DURATION_MS });
      setName('');
      setTelephone('');
      setMessage('');
    } catch (error) {
      if (error instanceof ApiError) {
        const refused = FIELDS.filter((field) => error.fields[field]);
        if (refused.length > 0) setInvalid(Object.fromEntries(refused.map((field) => [field, error.fields[field]!])));
      }
      toast(errorText(error, t), { kind: 'error', durationMs: ERROR_TOAST_MS });
    } finally {
      setSending(false);
    }
  };

  return (
    <section className="section contact" aria-labelledby="contact-title">
      <h2 id="contact-title">{t('contact.title')}</h2>
      <p>{t('contact.intro')}</p>
      <form className="contact__form" method="post" action={CONTACT_MESSAGES_PATH} noValidate onSubmit={onSubmit}>
        <input type="hidden" name="market" value={marketCode} />
        {FIELDS.map((field) => (
          <div className={invalid[field] ? 'field field--invalid' : 'field'} key={field}>
            <label htmlFor={`contact-${field}`}>{t(`contact.${field}`)}</label>
            {field === 'message' ? (
              <textarea
                id="contact-message"
                name="message"
                rows={5}
                maxLength={2000}
                value={values.message}
                aria-invalid={invalid.message ? true : undefined}
                aria-describedby={invalid.message ? 'contact-message-error' : undefined}
                onChange={(e) => change('message', e.target.value)}
              />
            ) : (
              <input
                id={`contact-${field}`}
                name={field}
                type={field === 'name' ? 'text' : 'tel'}
                autoComplete={field === 'name' ? 'name' : 'tel'}
                maxLength={field === 'name' ? 100 : 32}
                value={values[field]}
                aria-invalid={invalid[field] ? true : undefined}
                aria-describedby={invalid[field] ? `contact-${field}-error` : undefined}
                onChange={(e) => change(field, e.target.value)}
              />
            )}
            {invalid[field] && (
              <p className="field__error" id={`contact-${field}-error`}>
                {invalid[field]}
              </p>
            )}
          </div>
        ))}
        {/* Off-screen rather than display:none, so that programs reading the page still find it to fill. */}
        <div className="contact__trap" aria-hidden="true">
          <label htmlFor="contact-website">{t('contact.website')}</label>
          <input id="contact-website" name="website" type="text" tabIndex={-1} autoComplete="off" defaultValue="" ref={trap} />
        </div>
        <button type="submit" className="button" aria-disabled={sending || undefined} aria-describedby="contact-privacy">
          {sending ? t('contact.sending') : t('contact.submit')}
        </button>
        <p className="contact__privacy" id="contact-privacy">
          {t('contact.privacy')}
        </p>
      </form>
      <p className="contact__reply">{t('contact.replyTime')}</p>
      <h3 className="contact__other-title">{t('contact.otherWays')}</h3>
      <dl className="contact__other">
        <dt>{t('contact.phone')}</dt>
        <dd>
          <a href={`tel:${settings.servicePhone}`}>{settings.servicePhone}</a>
        </dd>
        <dt>{t('contact.whatsapp')}</dt>
        <dd>
          <a
            href={settings.whatsappUrl}
            rel="noopener noreferrer"
            target="_blank"
            aria-label={t('contact.whatsappLink', { number: settings.whatsappNumber })}
          >
            {settings.whatsappNumber}
          </a>
        </dd>
        <dt>{t('contact.email')}</dt>
        <dd>
          <a href={`mailto:${settings.email}`}>{settings.email}</a>
        </dd>
      </dl>
    </section>
  );
}

function errorText(error: unknown, t: (key: string) => string): string {
  if (error instanceof ApiError) {
    if (error.msg) return error.msg;
    if (error.code === CLIENT_ERROR.timeout) return t('shared:toast.timeout');
    if (error.code === CLIENT_ERROR.network) return t('shared:toast.networkError');
  }
  return t('contact.failed');
}
