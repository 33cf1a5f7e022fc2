import type { ImageUploadItem } from 'antd-mobile';
import { Toast } from 'antd-mobile';
import type { TFunction } from 'i18next';
import { errorText } from '@/shared/api/error-text';
import { ApiError, type HttpClient } from '@/shared/api/http';
import { complaintImageUrl, deleteComplaintImage, uploadComplaintImage } from '../../api/support';

export const PHOTO_TYPES = 'image/jpeg,image/png,image/webp';

/** The image uploader's upload and delete for a complaint's photos (the complaint's form and a reply's). */
export function photoUpload(api: HttpClient, t: TFunction, maxImageBytes: number) {
  return {
    upload: async (file: File): Promise<ImageUploadItem> => {
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
    },
    onDelete: (item: ImageUploadItem) => {
      if (item.extra) void deleteComplaintImage(api, String(item.extra)).catch(() => undefined);
      return true;
    },
  };
}
