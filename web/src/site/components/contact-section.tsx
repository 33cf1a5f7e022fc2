import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useApiClient } from '@/shared/api/api-context';
import { ApiError, CLIENT_ERROR } from '@/shared/api/http';
import { CONTACT_MESSAGES_PATH, sendContactMessage } from '@/shared/api/site';
import { useSettings } from '@/shared/settings/settings-context';
import { TOAST_DURATION_MS, useToast } from '@/shared/ui/toast';

/** Errors stay a little longer than the 1 s of SPEC.md's two messages: they are longer to read. */
export const ERROR_TOAST_MS = 3000;

/**
 * The contact form (SPEC.md §5, PRODUCT.md §2): the same checks and 1 s toasts as the original, but a
 * complete message is really sent, and the fields clear only once the server has stored it.
 * Without JavaScript the form still posts, form-encoded, to the same endpoint.
 */
export function ContactSection() {
  const { t } = useTranslation();
  const api = useApiClient();
  const toast = useToast();
  const settings = useSettings();
  const [name, setName] = useState('');
  const [telephone, setTelephone] = useState('');
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    const fields = { name: name.trim(), telephone: telephone.trim(), message: message.trim() };
    if (!fields.name || !fields.telephone || !fields.message) {
      toast(t('contact.incomplete'), { kind: 'error', durationMs: TOAST_DURATION_MS });
      return;
    }
    setSending(true);
    try {
      await sendContactMessage(api, fields);
      toast(t('contact.success'), { kind: 'success', durationMs: TOAST_DURATION_MS });
      setName('');
      setTelephone('');
      setMessage('');
    } catch (error) {
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
        <div className="field">
          <label htmlFor="contact-name">{t('contact.name')}</label>
          <input id="contact-name" name="name" type="text" autoComplete="name" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="contact-telephone">{t('contact.telephone')}</label>
          <input id="contact-telephone" name="telephone" type="tel" autoComplete="tel" maxLength={32} value={telephone} onChange={(e) => setTelephone(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="contact-message">{t('contact.message')}</label>
          <textarea id="contact-message" name="message" rows={5} maxLength={2000} value={message} onChange={(e) => setMessage(e.target.value)} />
        </div>
        <button type="submit" className="button" aria-disabled={sending || undefined}>
          {sending ? t('contact.sending') : t('contact.submit')}
        </button>
      </form>
      <h3 className="contact__other-title">{t('contact.otherWays')}</h3>
      <dl className="contact__other">
        <dt>{t('contact.phone')}</dt>
        <dd>
          <a href={`tel:${settings.servicePhone}`}>{settings.servicePhone}</a>
        </dd>
        <dt>{t('contact.whatsapp')}</dt>
        <dd>{settings.whatsappNumber}</dd>
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
