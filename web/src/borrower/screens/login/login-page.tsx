import { Button, type InputRef } from 'antd-mobile';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { checkPhone, formatPhoneInput } from '@/shared/phone/phone';
import { useLogIn } from '../../api/login';
import { useLoginInit } from '../../api/login-init';
import { apiMarket } from '../../api/market-code';
import { useRequestSmsCode } from '../../api/sms-code';
import type { LoginInit } from '../../api/types';
import { useRequestVoiceCode } from '../../api/voice-code';
import { Screen } from '../../layout/screen';
import { APP_BASENAME } from '../../paths';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { TextField } from '../../ui/text-field';
import { useErrorToast } from '../../ui/use-error-toast';
import { useCountdown } from './use-countdown';

/** Where to go after logging in: back where a 401 interrupted, or the loans on offer. */
/** Why the borrower's session ended, as the server said it on the 401 that brought them here (app.tsx). */
function signedOutReason(state: unknown): string | null {
  const why = (state as { signedOut?: unknown } | null)?.signedOut;
  return typeof why === 'string' && why ? why : null;
}

function destination(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('/login') ? from : '/home';
}

export function LoginPage() {
  const { t } = useTranslation();
  const init = useLoginInit();
  return (
    <Screen title={t('login.title')}>
      {init.isPending ? (
        <LoadingState />
      ) : init.isError ? (
        <StateNotice kind="error" title={t('login.initFailed')} text={errorText(init.error, t)} onRetry={() => void init.refetch()} />
      ) : (
        <LoginForm init={init.data} />
      )}
    </Screen>
  );
}

type Field = 'phone' | 'code';

interface SentCode {
  /** The E.164 number the code went to: editing the number asks for a new code. */
  phone: string;
  channel: 'sms' | 'voice';
  phoneMasked: string | null;
  /** False when the provider's answer never came: the code may still arrive. */
  confirmed: boolean;
}

function LoginForm({ init }: { init: LoginInit }) {
  const { t } = useTranslation();
  const market = useMarket();
  const navigate = useNavigate();
  const location = useLocation();
  const showError = useErrorToast();
  const codeInput = useRef<InputRef>(null);
  const sms = useRequestSmsCode();
  const voice = useRequestVoiceCode();
  const login = useLogIn();
  const { secondsLeft, start: startCountdown } = useCountdown();
  const [phone, setPhone] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [sent, setSent] = useState<SentCode | null>(null);

  const phoneNow = checkPhone(phone, market.id);
  const codeIsForThisPhone = sent !== null && phoneNow.ok && phoneNow.e164 === sent.phone;
  const busy = sms.isPending || voice.isPending || login.isPending;

  /** A refusal: its `msg` as a toast, and each field error under its field. */
  const showRefusal = (error: unknown) => {
    showError(error);
    if (!(error instanceof ApiError)) return;
    const { phone: phoneError, code: codeError } = error.fields;
    if (phoneError || codeError) setErrors((before) => ({ ...before, ...(phoneError && { phone: phoneError }), ...(codeError && { code: codeError }) }));
  };

  /** Checked when a button asks, not on every key: "invalid" while someone is still typing helps nobody. */
  const checkedPhone = (): string | null => {
    if (phoneNow.ok) return phoneNow.e164;
    setErrors((before) => ({ ...before, phone: t(phoneNow.reason === 'required' ? 'login.phoneRequired' : 'login.phoneInvalid') }));
    return null;
  };

  const requestCode = (channel: 'sms' | 'voice') => {
    const e164 = checkedPhone();
    if (!e164 || busy) return;
    const mutation = channel === 'sms' ? sms : voice;
    mutation.mutate(
      { market: apiMarket(market), phone: e164 },
      {
        onSuccess: (answer) => {
          setSent({ phone: e164, channel, phoneMasked: answer.phoneMasked, confirmed: answer.deliveryConfirmed });
          startCountdown(answer.resendSeconds);
          setErrors((before) => ({ ...before, code: undefined }));
          codeInput.current?.focus();
        },
        onError: (error) => {
          showRefusal(error);
          // Too soon: the server says how long to wait, and the button counts it down.
          if (error instanceof ApiError && error.code === 'code_resend_too_soon' && error.retryAfterSeconds !== null) {
            setSent((before) => (before?.phone === e164 ? before : { phone: e164, channel, phoneMasked: null, confirmed: true }));
            startCountdown(error.retryAfterSeconds);
          }
        },
      },
    );
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const e164 = checkedPhone();
    let codeError: string | undefined;
    if (!code) codeError = t('login.codeRequired');
    else if (code.length !== init.codeLength) codeError = t('login.codeInvalid', { length: init.codeLength });
    if (codeError) setErrors((before) => ({ ...before, code: codeError }));
    if (!e164 || codeError || busy) return;
    login.mutate(
      { market: apiMarket(market), phone: e164, code },
      {
        onSuccess: () => void navigate(destination(location.state), { replace: true }),
        onError: (error) => {
          showRefusal(error);
          // A spent or expired code cannot work again: clear it for the new one.
          if (error instanceof ApiError && (error.code === 'code_attempts_exceeded' || error.code === 'code_expired')) setCode('');
        },
      },
    );
  };

  const onPhoneChange = (value: string) => {
    setPhone(formatPhoneInput(value, market.id));
    setErrors((before) => ({ ...before, phone: undefined }));
  };
  const onCodeChange = (value: string) => {
    setCode(value.replace(/\D/g, '').slice(0, init.codeLength));
    setErrors((before) => ({ ...before, code: undefined }));
  };

  let codeActions: ReactNode;
  if (!codeIsForThisPhone) {
    codeActions = (
      <Button block color="primary" fill="outline" loading={sms.isPending} loadingText={t('login.getCode')} disabled={busy} onClick={() => requestCode('sms')}>
        {t('login.getCode')}
      </Button>
    );
  } else if (secondsLeft > 0) {
    codeActions = (
      <Button block fill="outline" disabled>
        {t('login.resendIn', { seconds: secondsLeft })}
      </Button>
    );
  } else {
    codeActions = (
      <>
        <Button block color="primary" fill="outline" loading={sms.isPending} loadingText={t('login.resend')} disabled={busy} onClick={() => requestCode('sms')}>
          {t('login.resend')}
        </Button>
        {init.voiceCodeOffered && (
          <Button block color="primary" fill="none" loading={voice.isPending} loadingText={t('login.voice')} disabled={busy} onClick={() => requestCode('voice')}>
            {t('login.voice')}
          </Button>
        )}
      </>
    );
  }

  const signedOut = signedOutReason(location.state);
  return (
    <div className="login">
      {signedOut && (
        <p className="login__signed-out" role="status">
          {signedOut}
        </p>
      )}
      <h2 className="login__heading">{t('login.heading')}</h2>
      <p className="login__intro">{t('login.intro', { length: init.codeLength })}</p>
      <form className="card login__form" noValidate onSubmit={onSubmit}>
        <TextField
          id="login-phone"
          label={t('login.phone')}
          value={phone}
          onChange={onPhoneChange}
          error={errors.phone}
          prefix={<span className="field__prefix">{init.countryCode}</span>}
          type="tel"
          inputMode="tel"
          autoComplete="tel-national"
          placeholder={init.phoneExample}
          clearable
        />
        <div className="login__code-actions">
          {codeActions}
          <p className="login__sent" role="status">
            {codeIsForThisPhone && sent.phoneMasked ? t(sentKey(sent), { phone: sent.phoneMasked }) : ''}
          </p>
        </div>
        <TextField
          ref={codeInput}
          id="login-code"
          label={t('login.code')}
          value={code}
          onChange={onCodeChange}
          error={errors.code}
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={init.codeLength}
          placeholder={t('login.codePlaceholder', { length: init.codeLength })}
        />
        <Button block type="submit" color="primary" size="large" loading={login.isPending} loadingText={t('login.submit')} disabled={login.isPending}>
          {t('login.submit')}
        </Button>
        <p className="login__consent">
          <Trans i18nKey="login.consent" components={{ agreement: <AppLink href={init.agreementUrl} />, privacy: <AppLink href={init.privacyUrl} /> }} />
        </p>
      </form>
      <p className="login__market">
        {/* A full load: the market is chosen once per page (PRODUCT.md §1) and then kept for the visit. */}
        <a href={`${APP_BASENAME}/login?lang=${market.id === 'in' ? '0' : '1'}`} lang={market.id === 'in' ? 'id' : 'en'}>
          {t('login.otherMarket')}
        </a>
      </p>
    </div>
  );
}

/** What the borrower is told of a code asked for: on its way, or perhaps on its way. */
function sentKey(sent: SentCode): string {
  if (!sent.confirmed) return 'login.sentUnconfirmed';
  return sent.channel === 'sms' ? 'login.sentSms' : 'login.sentVoice';
}

/** A link from the server's answer: inside the app it routes, elsewhere it is a plain link. */
function AppLink({ href, children }: { href: string; children?: ReactNode }) {
  if (href.startsWith(`${APP_BASENAME}/`)) return <Link to={href.slice(APP_BASENAME.length)}>{children}</Link>;
  return <a href={href}>{children}</a>;
}
