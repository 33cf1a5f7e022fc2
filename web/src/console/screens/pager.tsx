import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** `?page=N` of a paged screen's URL, from 1 (anything else is the first page). */
export function pageOf(params: URLSearchParams): number {
  const page = Number(params.get('page'));
  return Number.isInteger(page) && page > 1 ? page : 1;
}

/**
 * The previous and next links of a paged list and where it stands: "Page N of M" when the total is known, "Page N"
 * when it is not (`hasNext` then comes from a full page). `link` gives a page's address.
 */
export function Pager({ page, pages, hasNext, link }: { page: number; pages?: number; hasNext: boolean; link: (page: number) => string }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t('queue.pages')} className="pager">
      {page > 1 ? (
        <Link to={link(page - 1)} rel="prev">
          {t('queue.previous')}
        </Link>
      ) : (
        <span aria-hidden="true" />
      )}
      <span>{pages ? t('queue.pageOf', { page, pages }) : t('queue.page', { page })}</span>
      {hasNext ? (
        <Link to={link(page + 1)} rel="next">
          {t('queue.next')}
        </Link>
      ) : (
        <span aria-hidden="true" />
      )}
    </nav>
  );
}
