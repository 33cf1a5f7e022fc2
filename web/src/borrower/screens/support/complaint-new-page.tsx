import { Button, Form, ImageUploader, Selector, TextArea, Toast } from 'antd-mobile';
import type { ImageUploadItem } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useApiClient } from '@/shared/api/api-context';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { complaintImageUrl, deleteComplaintImage, uploadComplaintImage, useComplaintInit, useSaveComplaint } from '../../api/support';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import './support.css';

const ACCEPT = 'image/jpeg,image/png,image/webp';

/** A new complaint: category, the loan it is about (optional), what happened, up to three photos. */
export function ComplaintNewPage() {
  const { t } = useTranslation();
  const init = useComplaintInit();
  const api = useApiClient();
  const navigate = useNavigate();
  const save = useSaveComplaint();
  const [category, setCategory] = useState<string | undefined>();
  const [orderNo, setOrderNo] = useState<string | undefined>();
  const [description, setDescription] = useState('');
  const [photos, setPhotos] = useState<ImageUploadItem[]>([]);
  const [fields, setFields] = useState<Record<string, string>>({});

  if (init.isPending) return <Screen title={t('complaints.newTitle')} backTo="/complaints"><LoadingState /></Screen>;
  if (init.isError)
    return (
      <Screen title={t('complaints.newTitle')} backTo="/complaints">
        <StateNotice kind="error" title={t('complaints.initFailed')} text={errorText(init.error, t)} onRetry={() => void init.refetch()} />
      </Screen>
    );
  const { categories, loans, maxImages, maxImageBytes } = init.data;

  const upload = async (file: File): Promise<ImageUploadItem> => {
    if (file.size > maxImageBytes) {
      Toast.show({ content: t('complaints.photoTooLarge', { mb: Math.round(maxImageBytes / 1024 / 1024) }) });
      throw new Error('too large');
    }
    try {
      const image = await uploadComplaintImage(api, file);
      return { url: complaintImageUrl(image.imageId), extra: image.imageId };
    } catch (error) {
      Toast.show({ content: error instanceof ApiError ? (error.fields.image ?? errorText(error, t)) : t('complaints.photoFailed') });
      throw error;
    }
  };

  const submit = () => {
    setFields({});
    save.mutate(
      { category: category ?? '', orderNo: orderNo ?? undefined, description, imageIds: photos.map((p) => String(p.extra)) },
      {
        onSuccess: (detail) => {
          Toast.show({ icon: 'success', content: t('complaints.filed', { ticketNo: detail.ticketNo }) });
          void navigate(`/complaints/${encodeURIComponent(detail.ticketNo)}`, { replace: true });
        },
        onError: (error) => {
          setFields(error.fields);
          Toast.show({ content: errorText(error, t) });
        },
      },
    );
  };

  return (
    <Screen title={t('complaints.newTitle')} backTo="/complaints">
      <Form layout="vertical" className="support complaint-form" footer={
        <Button block color="primary" size="large" loading={save.isPending} onClick={submit}>
          {t('complaints.send')}
        </Button>
      }>
        <Form.Item label={t('complaints.category')} help={fields.category} className={fields.category ? 'field--error' : undefined}>
          <Selector columns={2} options={categories.map((c) => ({ label: c.label, value: c.code }))} value={category ? [category] : []} onChange={(v) => setCategory(v[0])} />
        </Form.Item>
        {loans.length > 0 && (
          <Form.Item label={t('complaints.loan')} help={fields.orderNo}>
            <Selector columns={1} options={loans.map((l) => ({ label: `${l.orderNo} · ${l.productName}`, value: l.orderNo }))} value={orderNo ? [orderNo] : []} onChange={(v) => setOrderNo(v[0])} />
          </Form.Item>
        )}
        <Form.Item label={t('complaints.description')} help={fields.description ?? t('complaints.descriptionHelp')} className={fields.description ? 'field--error' : undefined}>
          <TextArea aria-label={t('complaints.description')} value={description} onChange={setDescription} rows={5} maxLength={2000} showCount placeholder={t('complaints.descriptionPlaceholder')} />
        </Form.Item>
        <Form.Item label={t('complaints.photos', { max: maxImages })} help={fields.imageIds ?? t('complaints.photosHelp')}>
          <ImageUploader
            accept={ACCEPT}
            maxCount={maxImages}
            value={photos}
            onChange={setPhotos}
            upload={upload}
            onDelete={(item) => {
              if (item.extra) void deleteComplaintImage(api, String(item.extra)).catch(() => undefined);
              return true;
            }}
          />
        </Form.Item>
      </Form>
    </Screen>
  );
}
