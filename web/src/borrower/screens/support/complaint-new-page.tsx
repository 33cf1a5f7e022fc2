import { Button, Form, Selector, TextArea, Toast } from 'antd-mobile';
import type { ImageUploadItem } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useComplaintInit, useSaveComplaint, useWaitingComplaintImages } from '../../api/support';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { PhotoPicker, photoIds } from './photo-picker';
import './support.css';

const MIN_DESCRIPTION = 10;
const MAX_DESCRIPTION = 2000;

interface ComplaintFields {
  category?: string[];
  orderNo?: string[];
  description?: string;
  photos?: ImageUploadItem[];
}

/** A new complaint: category, the loan it is about (optional), what happened, up to three photos. A field left empty
 * is marked where it is, before anything is sent; the server's own field errors land on their fields too. */
export function ComplaintNewPage() {
  const { t } = useTranslation();
  const init = useComplaintInit();
  // The photos that already wait are asked for with the set-up, not after it; the picker shows them.
  useWaitingComplaintImages();
  const navigate = useNavigate();
  const save = useSaveComplaint();
  const [form] = Form.useForm<ComplaintFields>();

  if (init.isPending) return <Screen title={t('complaints.newTitle')} backTo="/complaints"><LoadingState /></Screen>;
  if (init.isError)
    return (
      <Screen title={t('complaints.newTitle')} backTo="/complaints">
        <StateNotice kind="error" title={t('complaints.initFailed')} text={errorText(init.error, t)} onRetry={() => void init.refetch()} />
      </Screen>
    );
  const { categories, loans, maxImages, maxImageBytes } = init.data;

  const submit = (values: ComplaintFields) => {
    save.mutate(
      {
        category: values.category?.[0] ?? '',
        orderNo: values.orderNo?.[0] ?? undefined,
        description: values.description ?? '',
        imageIds: photoIds(values.photos),
      },
      {
        onSuccess: (detail) => {
          Toast.show({ icon: 'success', content: t('complaints.filed', { ticketNo: detail.ticketNo }) });
          void navigate(`/complaints/${encodeURIComponent(detail.ticketNo)}`, { replace: true });
        },
        onError: (error) => {
          const named = Object.entries(error.fields).filter(([name]) => ['category', 'orderNo', 'description', 'imageIds'].includes(name));
          if (named.length > 0) {
            form.setFields(named.map(([name, message]) => ({ name: name === 'imageIds' ? 'photos' : name, errors: [message] })));
          } else {
            Toast.show({ content: errorText(error, t) });
          }
        },
      },
    );
  };

  return (
    <Screen title={t('complaints.newTitle')} backTo="/complaints">
      <Form
        form={form}
        layout="vertical"
        className="support complaint-form"
        initialValues={{ photos: [] }}
        onFinish={submit}
        footer={
          <Button block type="submit" color="primary" size="large" loading={save.isPending}>
            {t('complaints.send')}
          </Button>
        }
      >
        <Form.Item name="category" label={t('complaints.category')} rules={[{ required: true, type: 'array', min: 1, message: t('complaints.categoryRequired') }]}>
          <Selector columns={2} options={categories.map((c) => ({ label: c.label, value: c.code }))} />
        </Form.Item>
        {loans.length > 0 && (
          <Form.Item name="orderNo" label={t('complaints.loan')}>
            <Selector columns={1} options={loans.map((l) => ({ label: `${l.orderNo} · ${l.productName}`, value: l.orderNo }))} />
          </Form.Item>
        )}
        <Form.Item
          name="description"
          label={t('complaints.description')}
          help={t('complaints.descriptionHelp')}
          rules={[
            { required: true, whitespace: true, message: t('complaints.descriptionRequired') },
            { min: MIN_DESCRIPTION, transform: (v: string | undefined) => v?.trim(), message: t('complaints.descriptionShort', { min: MIN_DESCRIPTION }) },
          ]}
        >
          <TextArea aria-label={t('complaints.description')} rows={5} maxLength={MAX_DESCRIPTION} showCount placeholder={t('complaints.descriptionPlaceholder')} />
        </Form.Item>
        <Form.Item name="photos" label={t('complaints.photos', { max: maxImages })} help={t('complaints.photosHelp')}>
          <PhotoPicker maxCount={maxImages} maxImageBytes={maxImageBytes} />
        </Form.Item>
      </Form>
    </Screen>
  );
}
