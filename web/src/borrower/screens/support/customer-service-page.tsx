import { Collapse, List } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useCustomerService, useFaq } from '../../api/support';
import type { FaqEntry } from '../../api/types';
import { Screen } from '../../layout/screen';
import { breakable, LONG_VALUE } from '../../ui/long-value';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import './support.css';

const tel = (phone: string) => `tel:${phone.replace(/[^\d+]/g, '')}`;

/** Customer service: call, WhatsApp (the text names the open loan), hours, the grievance officer, and the FAQ. */
export function CustomerServicePage() {
  const { t } = useTranslation();
  const cs = useCustomerService();
  return (
    <Screen title={t('support.title')} backTo="/me">
      {cs.isPending ? (
        <LoadingState />
      ) : cs.isError ? (
        <StateNotice kind="error" title={t('support.loadFailed')} text={errorText(cs.error, t)} onRetry={() => void cs.refetch()} />
      ) : (
        <div className="support">
          <List header={<h2 className="list-heading">{t('support.contact')}</h2>} mode="card">
            <List.Item extra={<a href={tel(cs.data.servicePhone)}>{cs.data.servicePhone}</a>}>{t('support.call')}</List.Item>
            <List.Item
              extra={
                <a href={cs.data.whatsappUrl} rel="noopener noreferrer" target="_blank">
                  {cs.data.whatsappNumber}
                </a>
              }
              description={cs.data.openOrderNo ? t('support.whatsappLoan', { orderNo: cs.data.openOrderNo }) : undefined}
            >
              {t('support.whatsapp')}
            </List.Item>
            <List.Item extra={<span className="me__value">{cs.data.serviceHours}</span>}>{t('support.hours')}</List.Item>
            <List.Item>
              <Link className="list-link" to="/complaints">
                {t('support.complaints')}
              </Link>
            </List.Item>
          </List>
          <List header={<h2 className="list-heading">{t('support.grievance')}</h2>} mode="card">
            <List.Item description={cs.data.lenderName}>{cs.data.grievanceOfficer.name}</List.Item>
            <List.Item
              extra={
                <a className={LONG_VALUE} href={`mailto:${cs.data.grievanceOfficer.email}`}>
                  {breakable(cs.data.grievanceOfficer.email)}
                </a>
              }
            >
              {t('support.email')}
            </List.Item>
            <List.Item extra={<a href={tel(cs.data.grievanceOfficer.phone)}>{cs.data.grievanceOfficer.phone}</a>}>{t('support.phone')}</List.Item>
          </List>
          <Faq />
        </div>
      )}
    </Screen>
  );
}

function Faq() {
  const { t } = useTranslation();
  const faq = useFaq();
  if (faq.isPending) return <LoadingState />;
  if (faq.isError) return <StateNotice kind="error" title={t('support.faqFailed')} text={errorText(faq.error, t)} onRetry={() => void faq.refetch()} />;
  if (faq.data.length === 0) return <StateNotice kind="empty" title={t('support.faqEmpty')} />;
  const byCategory = new Map<string, FaqEntry[]>();
  for (const entry of faq.data) byCategory.set(entry.category, [...(byCategory.get(entry.category) ?? []), entry]);
  return (
    <section className="support__faq" aria-labelledby="faq-heading">
      <h2 id="faq-heading" className="list-heading support__faq-heading">
        {t('support.faq')}
      </h2>
      {[...byCategory].map(([category, entries]) => (
        <div key={category} className="support__faq-group">
          <h3 className="support__faq-category">{t(`support.faqCategory.${category}`, { defaultValue: category })}</h3>
          <Collapse accordion>
            {entries.map((e) => (
              <Collapse.Panel key={e.id} title={e.question}>
                {e.answer}
              </Collapse.Panel>
            ))}
          </Collapse>
        </div>
      ))}
    </section>
  );
}
