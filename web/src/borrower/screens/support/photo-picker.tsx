import { useQueryClient } from '@tanstack/react-query';
import { ImageUploader, Toast } from 'antd-mobile';
import type { ImageUploadItem } from 'antd-mobile';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useApiClient } from '@/shared/api/api-context';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import {
  complaintImageUrl,
  deleteComplaintImage,
  forgetWaitingImages,
  uploadComplaintImage,
  useWaitingComplaintImages,
  waitingImagesChanged,
} from '../../api/support';
import type { ComplaintImage } from '../../api/types';

export const PHOTO_TYPES = 'image/jpeg,image/png,image/webp';

const NO_PHOTOS: ImageUploadItem[] = [];

/** What the picker keeps of a photo (as its item's `extra`): the upload's id, and whether it waited from before. */
interface Photo {
  imageId: string;
  earlier: boolean;
}

function photoItem(imageId: string, earlier: boolean): ImageUploadItem {
  const photo: Photo = { imageId, earlier };
  return { key: imageId, url: complaintImageUrl(imageId), extra: photo };
}

function photoOf(item: ImageUploadItem): Photo | undefined {
  const extra: unknown = item.extra;
  return typeof extra === 'object' && extra !== null && 'imageId' in extra ? (extra as Photo) : undefined;
}

function idOf(item: ImageUploadItem): string | undefined {
  return photoOf(item)?.imageId;
}

/** The ids of the picker's photos, which the complaint or the reply sends. */
export function photoIds(photos: ImageUploadItem[] | undefined): string[] {
  return (photos ?? []).flatMap((item) => idOf(item) ?? []);
}

/** Each upload once, the first kept. */
function distinct(items: ImageUploadItem[]): ImageUploadItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = idOf(item);
    if (id === undefined) return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * The picker's photos with the server's waiting uploads: each waiting one not shown yet (nor being removed) is
 * added, before the ones picked now (it is older); one added so that no longer waits (sent elsewhere, expired) goes.
 * Null when nothing changes. An upload of this visit waits too: it is already shown, by its id, so never twice.
 */
function withWaiting(photos: ImageUploadItem[], waiting: ComplaintImage[], removing: ReadonlySet<string>): ImageUploadItem[] | null {
  const waitingIds = new Set(waiting.map((image) => image.imageId));
  const kept = photos.filter((item) => {
    const photo = photoOf(item);
    return !photo?.earlier || waitingIds.has(photo.imageId);
  });
  const shown = new Set(kept.map(idOf));
  const added = waiting.map((image) => image.imageId).filter((id) => !shown.has(id) && !removing.has(id));
  if (added.length === 0 && kept.length === photos.length) return null;
  return [...added.map((id) => photoItem(id, true)), ...kept];
}

interface PhotoPickerProps {
  /** From the form's item. */
  value?: ImageUploadItem[];
  onChange?: (photos: ImageUploadItem[]) => void;
  maxCount: number;
  maxImageBytes: number;
}

/**
 * The photos of a complaint or a reply, as a form's field. Each is uploaded when picked and waits on the server until
 * sent; the ones that already wait (picked earlier, in a form left before sending) are shown too, with a note, to be
 * sent or removed: they count against the limit either way. Their list loads alongside, and the picker works without it.
 */
export function PhotoPicker({ value = NO_PHOTOS, onChange, maxCount, maxImageBytes }: PhotoPickerProps) {
  const { t } = useTranslation();
  const api = useApiClient();
  const client = useQueryClient();
  const waiting = useWaitingComplaintImages();
  // The photos whose removal is under way or done: the list may still name them.
  const [removing, setRemoving] = useState<ReadonlySet<string>>(() => new Set());

  useEffect(() => {
    if (!waiting.data || !onChange) return;
    const next = withWaiting(value, waiting.data, removing);
    if (next) onChange(next);
  }, [waiting.data, value, removing, onChange]);

  const upload = async (file: File): Promise<ImageUploadItem> => {
    if (file.size > maxImageBytes) {
      Toast.show({ content: t('complaints.photoTooLarge', { mb: Math.round(maxImageBytes / 1024 / 1024) }) });
      throw new Error('too large');
    }
    try {
      const image = await uploadComplaintImage(api, file);
      waitingImagesChanged(client, { now: false });
      return photoItem(image.imageId, false);
    } catch (error) {
      Toast.show({ content: error instanceof ApiError ? (error.fields.image ?? errorText(error, t)) : t('complaints.photoFailed') });
      throw error;
    }
  };

  const remove = (item: ImageUploadItem) => {
    const imageId = idOf(item);
    if (imageId === undefined) return true;
    setRemoving((ids) => new Set(ids).add(imageId));
    deleteComplaintImage(api, imageId).then(
      () => forgetWaitingImages(client, [imageId]),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 404) {
          // Not waiting any more: gone already.
          forgetWaitingImages(client, [imageId]);
          return;
        }
        // Still waiting, so still counted: it comes back, to be removed again.
        Toast.show({ content: t('complaints.photoRemoveFailed') });
        setRemoving((ids) => new Set([...ids].filter((id) => id !== imageId)));
        waitingImagesChanged(client, { now: true });
      },
    );
    return true;
  };

  const earlier = value.some((item) => photoOf(item)?.earlier);
  return (
    <>
      {earlier && <p className="photo-picker__note">{t('complaints.photosEarlier')}</p>}
      <ImageUploader
        value={value}
        onChange={(photos) => onChange?.(distinct(photos))}
        accept={PHOTO_TYPES}
        maxCount={maxCount}
        upload={upload}
        onDelete={remove}
      />
    </>
  );
}
